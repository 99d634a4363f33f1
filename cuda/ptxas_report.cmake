# Writes cuda_build_report.txt: registers, stack frame (local memory) and spills of every
# kernel in cuda/kernels.cu and of the lane-group kernels in cuda/group_kernels.cu (with each
# function ptxas keeps out of line in them), from nvcc -Xptxas -v, for float and double, per
# architecture, followed by the example models' sizes.  Run by the cuda_build_report target:
#   cmake -DNVCC= -DSOURCE= -DGROUP_SOURCE= -DGROUP_DEFINITIONS= -DINCLUDES= -DARCHS= -DMODELS=
#         -DOUT= -P ptxas_report.cmake
cmake_minimum_required(VERSION 3.25)

string(REPLACE "," ";" archs "${ARCHS}")

# text padded with spaces to width: after it with APPEND (left-aligned), before it with PREPEND
function(pad out where text width)
  string(LENGTH "${text}" n)
  while(n LESS width)
    string(${where} text " ")
    math(EXPR n "${n} + 1")
  endwhile()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" includes "${INCLUDES}")
set(include_flags)
foreach(dir IN LISTS includes)
  list(APPEND include_flags "-I${dir}")
endforeach()

find_program(CXXFILT c++filt)
execute_process(COMMAND ${NVCC} --version OUTPUT_VARIABLE nvcc_version)
string(REGEX MATCH "release [0-9.]+, V[0-9.]+" nvcc_version "${nvcc_version}")

set(report "zwang CUDA build report (cuda/ptxas_report.cmake)\n")
string(APPEND report "kernels: ${SOURCE} ${GROUP_SOURCE}\nnvcc ${nvcc_version}, -O3, ptxas -v\n\n")
string(APPEND report "Registers and local memory come from the kernels' code, not from the model: no "
  "kernel sizes an array by\nnv or nbody (every per-instance value lives in the global arenas), "
  "so the numbers below hold for\nevery model, nv <= 12 included.  'stack' is the per-thread "
  "local-memory frame, 'spill' the bytes\nptxas had to store and reload because registers ran "
  "out.\n"
  "Where the stack is not zero it holds the argument reduction of sin/cos for |x| > 1e5 rad "
  "(a local\narray in the math library, 28-40 B, touched only on that slow path) in kernels "
  "that rotate;\nin the kernels that end a solve (forward_end, step_end, the fused ones) also "
  "the frames of the\nstages kept out of line (ZW_NOINLINE: collision, contact rows, the "
  "constraint solver), of which\nbox-box's candidate contacts (24 of them, about 1.2 KB in "
  "float64) are most.\n"
  "Each table lists every function ptxas keeps out of line as well (the lane-group sizes built "
  "side by\nside, <16> and <32>); registers are per kernel ('-' for the functions it calls). "
  "A spill of a called\nfunction that calls others is mostly the values it keeps across those "
  "calls (its return address\namong them) where the callee may use every register.\n")

# one table per source and architecture: every function ptxas compiled on its own, the kernels
# and the stages they call out of line; ptxas gives registers per kernel, the functions it calls
# included, so the others show '-'
function(report_source out source defines arch number)
  set(define_flags)
  foreach(d IN LISTS defines)
    list(APPEND define_flags "-D${d}")
  endforeach()
  get_filename_component(base "${source}" NAME_WE)
  execute_process(
    COMMAND ${NVCC} -std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -Werror=all-warnings
            ${include_flags} ${define_flags} -gencode=arch=compute_${number},code=sm_${number}
            -Xptxas -v -c ${source} -o ${OUT}.${base}.sm_${number}.o
    ERROR_VARIABLE log
    RESULT_VARIABLE result)
  file(REMOVE ${OUT}.${base}.sm_${number}.o)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "nvcc failed on ${source} for sm_${number}:\n${log}")
  endif()
  file(WRITE ${OUT}.${base}.sm_${number}.log "${log}")

  # one record per function: name, registers (entry functions), stack, spill stores, spill loads
  string(REPLACE "\n" ";" lines "${log}")
  set(names)
  set(current "")
  set(pending "")
  foreach(line IN LISTS lines)
    if(line MATCHES "Compiling entry function '([^']+)'")
      set(current "${CMAKE_MATCH_1}")
      list(APPEND names "${current}")
      set(stack_${current} 0)
      set(stores_${current} 0)
      set(loads_${current} 0)
    elseif(line MATCHES "Function properties for ([^ ]+)")
      set(pending "${CMAKE_MATCH_1}")
    elseif(line MATCHES "([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads")
      # a function called by several kernels is compiled into each: the largest of its copies
      if(NOT pending IN_LIST names)
        list(APPEND names "${pending}")
        set(regs_${pending} "-")
        set(stack_${pending} 0)
        set(stores_${pending} 0)
        set(loads_${pending} 0)
      endif()
      foreach(field stack stores loads)
        if(field STREQUAL "stack")
          set(value ${CMAKE_MATCH_1})
        elseif(field STREQUAL "stores")
          set(value ${CMAKE_MATCH_2})
        else()
          set(value ${CMAKE_MATCH_3})
        endif()
        if(value GREATER ${field}_${pending})
          set(${field}_${pending} ${value})
        endif()
      endforeach()
    elseif(line MATCHES "Used ([0-9]+) registers")
      set(regs_${current} ${CMAKE_MATCH_1})
    endif()
  endforeach()

  # readable names: demangled, without namespaces and parameter lists
  string(REPLACE ";" "\n" mangled "${names}")
  file(WRITE ${OUT}.names "${mangled}\n")
  if(CXXFILT)
    execute_process(COMMAND ${CXXFILT} INPUT_FILE ${OUT}.names OUTPUT_VARIABLE demangled)
  else()
    set(demangled "${mangled}")
  endif()
  file(REMOVE ${OUT}.names)
  string(REPLACE "\n" ";" demangled "${demangled}")

  get_filename_component(file "${source}" NAME)
  set(text "\n${file}, sm_${number}\n")
  string(APPEND text "function                                type      registers     stack B  spill st B  spill ld B\n")
  set(rows)
  set(index 0)
  foreach(name IN LISTS names)
    list(GET demangled ${index} pretty)
    math(EXPR index "${index} + 1")
    string(REGEX REPLACE "_INTERNAL_[^:]*::" "" pretty "${pretty}")
    string(REPLACE "(anonymous namespace)::" "" pretty "${pretty}")
    # a lambda kept out of line: its enclosing function's name and its number
    set(lambda "")
    if(pretty MATCHES "::\\{lambda\\(.*\\)#([0-9]+)\\}")
      set(lambda "::lambda#${CMAKE_MATCH_1}")
    endif()
    string(REGEX REPLACE "\\(.*$" "" pretty "${pretty}")
    string(APPEND pretty "${lambda}")
    string(REGEX REPLACE "^(void|bool|int|unsigned int|long|float|double) " "" pretty "${pretty}")
    string(REGEX REPLACE "zwang::gpu::|zwang::" "" pretty "${pretty}")
    set(type "double")
    if(pretty MATCHES "<float")
      set(type "float")
    elseif(NOT pretty MATCHES "<double")
      set(type "-")
    endif()
    string(REGEX REPLACE "<(float|double), ContactWriter<(float|double)>&>" "" pretty "${pretty}")
    string(REGEX REPLACE "<(float|double), " "<" pretty "${pretty}")
    string(REGEX REPLACE "<(float|double)>" "" pretty "${pretty}")
    pad(row APPEND "${pretty}" 40)
    pad(cell APPEND "${type}" 7)
    string(APPEND row "${cell}")
    foreach(value IN ITEMS "${regs_${name}}" "${stack_${name}}" "${stores_${name}}"
                           "${loads_${name}}")
      pad(cell PREPEND "${value}" 12)
      string(APPEND row "${cell}")
    endforeach()
    list(APPEND rows "${row}")
  endforeach()
  list(SORT rows)
  foreach(row IN LISTS rows)
    string(APPEND text "${row}\n")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

string(REPLACE "," ";" group_definitions "${GROUP_DEFINITIONS}")
foreach(arch IN LISTS archs)
  string(REGEX MATCH "^[0-9]+" number "${arch}")
  if(arch MATCHES "-virtual$")
    continue()
  endif()
  if(number STREQUAL "")
    string(APPEND report "\n${arch}: not reported (name numeric architectures, e.g. 90, to see "
      "them here)\n")
    continue()
  endif()
  report_source(text "${SOURCE}" "" ${arch} ${number})
  string(APPEND report "${text}")
  if(GROUP_SOURCE AND group_definitions)
    report_source(text "${GROUP_SOURCE}" "${group_definitions}" ${arch} ${number})
    string(APPEND report "${text}")
  endif()
endforeach()

execute_process(COMMAND ${MODELS} OUTPUT_VARIABLE models RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${MODELS} failed")
endif()
string(APPEND report "\nExample models: arena rows and global memory per instance (the arenas, time, "
  "status, phase)\n${models}")
file(WRITE ${OUT} "${report}")
message(STATUS "wrote ${OUT}")
