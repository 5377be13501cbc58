# CgpADDepfile.cmake - the second step of each cgp-ad command that
# cgp_ad_add_gradients() (CgpADFunctions.cmake) adds, run as
#   cmake -DCGP_AD_DEPFILE=NAME.cgp.d -DCGP_AD_BUILD_DEPFILE=NAME.cgp.build.d
#         -DCGP_AD_BUILD_STAMP=NAME.cgp.build-stamp -P CgpADDepfile.cmake
# The command's one OUTPUT is the build stamp, which this step touches on
# every run; the generated files are BYPRODUCTS that cgp-ad rewrites only when
# their contents change. So Make, like Ninja with restat, neither reruns
# cgp-ad nor recompiles after a change that leaves the generated code the
# same. Both read a depfile by its first target, which must then be the
# stamp: this step copies cgp-ad's depfile with the stamp as its target.
# With -DCGP_AD_OUTPUTS_AS_PREREQUISITES="A|B" (Makefile generators) it also
# lists the generated files A and B as prerequisites: Make cannot rebuild a
# lost byproduct, but CMake gives each depfile entry a rule that is always
# out of date when its file is missing, so the stamp, hence cgp-ad, reruns.
# (Ninja rebuilds lost byproducts by itself, and would see a cycle.)
foreach(var CGP_AD_DEPFILE CGP_AD_BUILD_DEPFILE CGP_AD_BUILD_STAMP)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "CgpADDepfile.cmake: -D${var}=... is missing")
  endif()
endforeach()

file(READ "${CGP_AD_DEPFILE}" text)
# cgp-ad writes "TARGETS: \" on the first line, then a prerequisite a line.
string(FIND "${text}" ": \\\n" colon)
if(colon LESS 0)
  message(FATAL_ERROR "CgpADDepfile.cmake: '${CGP_AD_DEPFILE}' is not a depfile cgp-ad wrote")
endif()
math(EXPR rest_begin "${colon} + 1")
string(SUBSTRING "${text}" ${rest_begin} -1 prerequisites)
# A path in Make syntax, escaped as cgp-ad escapes paths.
function(_cgp_ad_escape out path)
  string(REPLACE "$" "$$" path "${path}")
  string(REPLACE " " "\\ " path "${path}")
  string(REPLACE "#" "\\#" path "${path}")
  set(${out} "${path}" PARENT_SCOPE)
endfunction()
_cgp_ad_escape(target "${CGP_AD_BUILD_STAMP}")
if(CGP_AD_OUTPUTS_AS_PREREQUISITES)
  string(REPLACE "|" ";" outputs "${CGP_AD_OUTPUTS_AS_PREREQUISITES}")
  string(REGEX REPLACE "\n$" "" prerequisites "${prerequisites}")
  foreach(output IN LISTS outputs)
    _cgp_ad_escape(output "${output}")
    string(APPEND prerequisites " \\\n  ${output}")
  endforeach()
  string(APPEND prerequisites "\n")
endif()
set(new_text "${target}:${prerequisites}")

set(old_text "")
if(EXISTS "${CGP_AD_BUILD_DEPFILE}")
  file(READ "${CGP_AD_BUILD_DEPFILE}" old_text)
endif()
if(NOT old_text STREQUAL new_text)
  file(WRITE "${CGP_AD_BUILD_DEPFILE}" "${new_text}")
endif()
file(TOUCH "${CGP_AD_BUILD_STAMP}")
