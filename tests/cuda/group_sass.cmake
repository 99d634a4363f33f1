# The lane-group kernels (cuda/group_kernels.cu) use no atomic instruction: their sums are
# per-lane partials and shuffles in a fixed order, so that a run gives the same bits every time
# (kernels/group.h). Reads the SASS of the object with cuobjdump and fails naming each function
# that holds an atomic or reduction-to-memory instruction (ATOM, ATOMS, ATOMG, RED, REDG, REDAS:
# a float atomic is one of them, or a compare-and-swap loop of them), or when the object holds no
# step_group_kernel.
#   cmake -DCUOBJDUMP= -DOBJECTS="<objects of the zwang target>" -P group_sass.cmake
set(atomic "/\\*[0-9a-f]+\\*/[ ]+(@!?U?P[0-7T][ ]+)?(ATOM|ATOMS|ATOMG|RED|REDG|REDAS)[. ]")

# the pattern itself: it must see float reductions to global memory and a shared-memory atomic,
# and not an ordinary add
foreach(line "        /*0040*/                   REDG.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5 ;"
             "        /*0070*/                   RED.E.ADD.F64.RN.STRONG.GPU [R2.64], R4 ;"
             "        /*00f0*/              @!P0 ATOMS.ADD R4, [R3], R6 ;")
  if(NOT line MATCHES "${atomic}")
    message(FATAL_ERROR "the atomic pattern misses: ${line}")
  endif()
endforeach()
if("        /*0080*/                   FADD R1, R2, R3 ;" MATCHES "${atomic}")
  message(FATAL_ERROR "the atomic pattern takes FADD for an atomic")
endif()

set(object "")
foreach(o IN LISTS OBJECTS)
  if(o MATCHES "group_kernels\\.cu\\.o$")
    set(object "${o}")
  endif()
endforeach()
if(object STREQUAL "")
  message(FATAL_ERROR "no group_kernels.cu object among: ${OBJECTS}")
endif()
execute_process(COMMAND ${CUOBJDUMP} -sass ${object} OUTPUT_VARIABLE sass RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cuobjdump -sass ${object} failed (${rc})")
endif()

# one list item per line: the list separator and the brackets (which group list items) out
string(REGEX REPLACE "[][;]" " " sass "${sass}")
string(REPLACE "\n" ";" lines "${sass}")
set(function "")
set(kernels 0)
set(functions 0)
set(offending "")
foreach(line IN LISTS lines)
  if(line MATCHES "Function : ([^ ]+)")
    set(function "${CMAKE_MATCH_1}")
    math(EXPR functions "${functions} + 1")
    if(function MATCHES "step_group_kernel")
      math(EXPR kernels "${kernels} + 1")
    endif()
  endif()
  if(line MATCHES "${atomic}")
    list(APPEND offending "${function}: ${line}")
  endif()
endforeach()
if(kernels EQUAL 0)
  message(FATAL_ERROR "no step_group_kernel in the SASS of ${object} (${functions} functions)")
endif()
if(offending)
  list(JOIN offending "\n" text)
  message(FATAL_ERROR "atomic instructions in the lane-group kernels:\n${text}")
endif()
message(STATUS "${functions} functions, ${kernels} step_group_kernel instantiations: no atomics")
