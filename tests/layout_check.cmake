# The folders of host/ follow the data flow, and a folder includes only the folders upstream of it
# (and kernels/, include/zwang/): a file → load/ → mesh/ → model/ → mjcf/, urdf/ → batch/ → the
# backend interface (the headers of host/ itself) → cpu/ (cuda/ and derivatives/ beside it) →
# the simulator (the sources of host/ itself) → cli/.  kernels/ and include/zwang/ include no
# host/ header.  This fails naming every include that reaches downstream.
#   cmake -DROOT=<repository> -P layout_check.cmake
set(order "load mesh model mjcf|urdf batch interface cpu|cuda|derivatives hub cli")
# the rank of each folder; mjcf and urdf are peers, and so are cpu and cuda
set(rank_load 0)
set(rank_mesh 1)
set(rank_model 2)
set(rank_mjcf 3)
set(rank_urdf 3)
set(rank_batch 4)
set(rank_interface 5)
set(rank_cpu 6)
set(rank_cuda 6)
set(rank_derivatives 6)
set(rank_hub 7)
set(rank_cli 8)

# the folder of a path under host/ (for host/ itself: "interface" for a header, "hub" for a
# source), "cuda" under cuda/, or "" elsewhere
function(folder_of path out)
  if(path MATCHES "^host/([a-z_]+)/")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  elseif(path MATCHES "^host/[^/]+\\.(hpp|h)$")
    set(${out} interface PARENT_SCOPE)
  elseif(path MATCHES "^host/[^/]+$")
    set(${out} hub PARENT_SCOPE)
  elseif(path MATCHES "^cuda/")
    set(${out} cuda PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

file(GLOB_RECURSE sources RELATIVE ${ROOT}
     ${ROOT}/host/*.cc ${ROOT}/host/*.hpp ${ROOT}/host/*.h ${ROOT}/host/*.inl
     ${ROOT}/cuda/*.cc ${ROOT}/cuda/*.cu ${ROOT}/cuda/*.hpp ${ROOT}/cuda/*.cuh ${ROOT}/cuda/*.h
     ${ROOT}/kernels/*.h ${ROOT}/include/*.hpp)
set(bad "")
set(checked 0)
foreach(file IN LISTS sources)
  file(STRINGS ${ROOT}/${file} includes REGEX "^[ \t]*#[ \t]*include[ \t]+\"host/")
  folder_of(${file} from)
  foreach(line IN LISTS includes)
    string(REGEX REPLACE "^[^\"]*\"([^\"]+)\".*$" "\\1" target "${line}")
    math(EXPR checked "${checked} + 1")
    if(from STREQUAL "")
      string(APPEND bad "\n  ${file} includes ${target} (kernels/ and include/ include no host/ header)")
      continue()
    endif()
    folder_of(${target} to)
    if(NOT DEFINED rank_${to})
      string(APPEND bad "\n  ${file} includes ${target}, in no folder of the layout")
      continue()
    endif()
    if(to STREQUAL from)
      continue()
    endif()
    if(NOT rank_${to} LESS rank_${from})
      string(APPEND bad "\n  ${file} (${from}/) includes ${target} (${to}/), which is not upstream of it")
    endif()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "layout_check: no include of host/ found under ${ROOT}: wrong ROOT?")
endif()
if(NOT bad STREQUAL "")
  message(FATAL_ERROR "includes that reach downstream (data flow: ${order}):${bad}")
endif()
message(STATUS "layout_check: ${checked} includes of host/ headers, each upstream or within its folder")
