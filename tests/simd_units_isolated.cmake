# The SIMD units (host/cpu/simd_avx2.cc, host/cpu/simd_avx512.cc) are compiled for instruction
# sets the CPU may lack.  Any function they define with linkage that the rest of zwang could
# also define (an inline function or template instantiation not named by the pack type) might be
# the copy the linker keeps, and would then run AVX-512 code on a CPU without it.  This lists the
# code symbols those objects export and fails on any that is not tied to the object's own
# instruction set: its entry point pack_isa_<isa>, or a name holding its pack's ABI tag
# (_VecBuiltin for AVX2, _VecBltnBtmsk for AVX-512).  Functions the compiler does not inline
# would appear here: at -O0 there are such, so CMakeLists.txt compiles these units with at least
# -O2 in every configuration.
#   cmake -DNM=nm -DOBJECTS="a.o;b.o;..." -P simd_units_isolated.cmake
set(found 0)
set(bad "")
foreach(object IN LISTS OBJECTS)
  if(NOT object MATCHES "cpu/simd_avx")
    continue()
  endif()
  math(EXPR found "${found} + 1")
  execute_process(COMMAND ${NM} -C --defined-only ${object} OUTPUT_VARIABLE symbols
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${object}")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  foreach(line IN LISTS lines)
    # T: global code, W: weak code (V, weak data such as typeinfo, holds no instructions)
    if(NOT line MATCHES "^[0-9a-f]+ [TW] (.*)$")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    if(object MATCHES "avx512")
      set(own "pack_isa_avx512|_VecBltnBtmsk")
    else()
      set(own "pack_isa_avx2|_VecBuiltin")
    endif()
    if(name MATCHES "${own}|^__clang_call_terminate$")
      continue()
    endif()
    string(APPEND bad "\n  ${object}: ${name}")
  endforeach()
endforeach()
if(found EQUAL 0)
  message(FATAL_ERROR "no SIMD unit among the objects: ${OBJECTS}")
endif()
if(bad)
  message(FATAL_ERROR "code compiled for a SIMD instruction set is shared with other units:${bad}")
endif()
message(STATUS "${found} SIMD units export only their own code")
