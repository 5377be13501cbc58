# CgpADFunctions.cmake - cgp_ad_add_gradients(), the CMake way to run cgp-ad
# at build time (interface.md section 4). Included by CgpADConfig.cmake after
# find_package(CgpAD), and by cgp-ad's own CMakeLists.txt so that
# add_subdirectory() of the source tree gives the same function.
#
#   cgp_ad_add_gradients(TARGET t SOURCES a.cpp b.cu [OPTIONS opt...])
#
# For each source, a custom command runs cgp-ad with t's include folders,
# compile definitions and C++ standard, writing NAME.cgp.EXT and NAME.cgp.h
# into ${BINARY_DIR of t}/cgp_ad_gen/t (the target property CGP_AD_OUTPUT_DIR).
# The generated unit replaces the source in t, t links cgp::runtime and may
# #include "NAME.cgp.h". cgp-ad reruns when the source or a header it includes
# changes (cgp-ad's depfile NAME.cgp.d), when the options or flags change (a
# file of them, NAME.cgp.flags, written only when they change), and when the
# tool changes; it leaves unchanged outputs untouched, so nothing recompiles.
#
# The command's OUTPUT is a stamp, NAME.cgp.build-stamp, touched on every run;
# the generated files are its BYPRODUCTS. Ninja (restat) and Make (which
# brings custom commands up to date in its "depend" pass, before compiling)
# then both skip what a run left unchanged. CgpADDepfile.cmake, run after
# cgp-ad, gives them cgp-ad's depfile with the stamp as its target.
include_guard(GLOBAL)

if(CMAKE_VERSION VERSION_LESS 3.20)
  message(FATAL_ERROR "cgp_ad_add_gradients needs CMake 3.20 or later (DEPFILE with Makefiles)")
endif()

# _cgp_ad_flag_defines(OUT LANG): the -D/-U flags of CMAKE_<LANG>_FLAGS and of
# CMAKE_<LANG>_FLAGS_<CONFIG> (such as NDEBUG), as generator expressions on
# the configuration, so that cgp-ad sees the code the compiler will see.
function(_cgp_ad_flag_defines out lang)
  set(result "")
  set(configs ${CMAKE_CONFIGURATION_TYPES} ${CMAKE_BUILD_TYPE})
  list(REMOVE_DUPLICATES configs)
  set(sets "ALL")
  foreach(config IN LISTS configs)
    if(config)
      list(APPEND sets "${config}")
    endif()
  endforeach()
  foreach(set IN LISTS sets)
    if(set STREQUAL "ALL")
      set(flags "${CMAKE_${lang}_FLAGS}")
    else()
      string(TOUPPER "${set}" upper)
      set(flags "${CMAKE_${lang}_FLAGS_${upper}}")
    endif()
    separate_arguments(flags UNIX_COMMAND "${flags}")
    foreach(flag IN LISTS flags)
      if(flag MATCHES "^-[DU].")
        if(set STREQUAL "ALL")
          list(APPEND result "${flag}")
        else()
          list(APPEND result "$<$<CONFIG:${set}>:${flag}>")
        endif()
      endif()
    endforeach()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

function(cgp_ad_add_gradients)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "TARGET" "SOURCES;OPTIONS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cgp_ad_add_gradients: unknown arguments '${arg_UNPARSED_ARGUMENTS}' "
                        "(usage: cgp_ad_add_gradients(TARGET t SOURCES a.cpp ... [OPTIONS opt ...]))")
  endif()
  if(NOT arg_TARGET)
    message(FATAL_ERROR "cgp_ad_add_gradients: TARGET is missing")
  endif()
  set(t "${arg_TARGET}")
  if(NOT TARGET "${t}")
    message(FATAL_ERROR "cgp_ad_add_gradients: '${t}' is not a target; call it after add_executable/add_library")
  endif()
  get_target_property(aliased "${t}" ALIASED_TARGET)
  get_target_property(imported "${t}" IMPORTED)
  get_target_property(type "${t}" TYPE)
  if(aliased OR imported OR type STREQUAL "INTERFACE_LIBRARY" OR type STREQUAL "UTILITY")
    message(FATAL_ERROR "cgp_ad_add_gradients: '${t}' must be an executable or a library built here "
                        "(not an alias, imported or interface target)")
  endif()
  get_target_property(target_source_dir "${t}" SOURCE_DIR)
  get_target_property(target_binary_dir "${t}" BINARY_DIR)
  if(NOT target_source_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "cgp_ad_add_gradients: call it in the folder that defines '${t}' "
                        "(${target_source_dir}), since the generated sources are built by rules of that folder")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "cgp_ad_add_gradients: no SOURCES for '${t}'")
  endif()
  if(NOT TARGET cgp::cgp-ad)
    message(FATAL_ERROR "cgp_ad_add_gradients: the cgp-ad tool (cgp::cgp-ad) is missing: "
                        "install cgp-ad with its tool (find_package(CgpAD REQUIRED COMPONENTS tool) "
                        "checks), or add_subdirectory its sources without -DCGP_AD_BUILD_TOOL=OFF")
  endif()
  if(NOT TARGET cgp::runtime)
    message(FATAL_ERROR "cgp_ad_add_gradients: the runtime library cgp::runtime is missing")
  endif()

  set(outdir "${target_binary_dir}/cgp_ad_gen/${t}")
  set_property(TARGET "${t}" PROPERTY CGP_AD_OUTPUT_DIR "${outdir}")
  get_target_property(done "${t}" CGP_AD_SOURCES)
  if(NOT done)
    set(done "")
  endif()
  get_target_property(sources "${t}" SOURCES)
  if(NOT sources)
    set(sources "")
  endif()

  # The flags cgp-ad parses with: the target's include folders and definitions
  # (with those of what it links), the -D flags of CMAKE_<LANG>_FLAGS, and the standard.
  set(includes "$<TARGET_PROPERTY:${t},INCLUDE_DIRECTORIES>")
  set(definitions "$<TARGET_PROPERTY:${t},COMPILE_DEFINITIONS>")
  set(std_cxx "$<TARGET_PROPERTY:${t},CXX_STANDARD>")
  set(std_cxx "$<IF:$<BOOL:${std_cxx}>,${std_cxx},17>")
  set(std_cuda "$<TARGET_PROPERTY:${t},CUDA_STANDARD>")
  set(std_cuda "$<IF:$<BOOL:${std_cuda}>,${std_cuda},${std_cxx}>")

  # Changing the policy here keeps callers with an older cmake_minimum_required
  # working: with OLD, Ninja would get cgp-ad's depfile untranslated.
  cmake_policy(PUSH)
  cmake_policy(SET CMP0116 NEW)
  set(generated "")
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(ext "${path}" LAST_EXT)
    get_filename_component(name "${path}" NAME_WLE)
    if(ext STREQUAL ".cu")
      set(lang CUDA)
      set(std "${std_cuda}")
    elseif(ext MATCHES "^\\.(cpp|cc|cxx)$")
      set(lang CXX)
      set(std "${std_cxx}")
    else()
      message(FATAL_ERROR "cgp_ad_add_gradients: '${source}' is not a .cpp, .cc, .cxx or .cu source")
    endif()
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "cgp_ad_add_gradients: no such source: '${path}'")
    endif()
    if("${name}" IN_LIST done)
      message(FATAL_ERROR "cgp_ad_add_gradients: '${t}' already differentiates a source named "
                          "'${name}' (its outputs would be ${outdir}/${name}.cgp.*)")
    endif()
    list(APPEND done "${name}")

    set(out_source "${outdir}/${name}.cgp${ext}")
    set(out_header "${outdir}/${name}.cgp.h")
    set(depfile "${outdir}/${name}.cgp.d")
    set(flagfile "${outdir}/${name}.cgp.flags")
    set(build_stamp "${outdir}/${name}.cgp.build-stamp")
    set(build_depfile "${outdir}/${name}.cgp.build.d")
    set(outputs_as_prerequisites "")
    if(CMAKE_GENERATOR MATCHES "Makefiles")
      set(outputs_as_prerequisites "-DCGP_AD_OUTPUTS_AS_PREREQUISITES=${out_source}|${out_header}")
    endif()
    _cgp_ad_flag_defines(flag_defines ${lang})

    # The options and flags as a file, rewritten only when they change: Make
    # does not rerun a command whose text changed, but it does see this file.
    string(JOIN "\n" options_text ${arg_OPTIONS})
    string(JOIN "\n" defines_text ${flag_defines})
    file(GENERATE OUTPUT "${flagfile}" CONTENT
"cgp-ad ${path}
options:
${options_text}
standard: ${std}
includes:
$<JOIN:${includes},\n>
definitions:
$<JOIN:${definitions},\n>
${defines_text}
")

    add_custom_command(
      OUTPUT "${build_stamp}"
      BYPRODUCTS "${out_source}" "${out_header}" "${depfile}" "${outdir}/${name}.cgp.stamp"
      COMMAND cgp::cgp-ad "${path}" -o "${outdir}" ${arg_OPTIONS} --
              "-std=c++${std}"
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${definitions}>:-D$<JOIN:${definitions},;-D>>"
              ${flag_defines}
      COMMAND "${CMAKE_COMMAND}" "-DCGP_AD_DEPFILE=${depfile}"
              "-DCGP_AD_BUILD_DEPFILE=${build_depfile}" "-DCGP_AD_BUILD_STAMP=${build_stamp}"
              ${outputs_as_prerequisites} -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CgpADDepfile.cmake"
      DEPFILE "${build_depfile}"
      DEPENDS "${path}" "${flagfile}" cgp::cgp-ad
      WORKING_DIRECTORY "${target_binary_dir}"
      COMMENT "cgp-ad: differentiating ${name}${ext} for ${t}"
      COMMAND_EXPAND_LISTS
      VERBATIM)
    list(APPEND generated "${out_source}" "${out_header}" "${build_stamp}")

    # The generated unit replaces the source in the target.
    set(kept "")
    foreach(entry IN LISTS sources)
      if(NOT entry MATCHES "\\$<")
        get_filename_component(entry_path "${entry}" ABSOLUTE BASE_DIR "${target_source_dir}")
        if(entry_path STREQUAL path)
          continue()
        endif()
      endif()
      list(APPEND kept "${entry}")
    endforeach()
    set(sources "${kept}")
  endforeach()
  cmake_policy(POP)

  set_property(TARGET "${t}" PROPERTY SOURCES ${sources} ${generated})
  set_property(TARGET "${t}" PROPERTY CGP_AD_SOURCES "${done}")
  # "NAME.cgp.h" for the target's code and, through a library, its users in this build.
  if(type STREQUAL "EXECUTABLE")
    target_include_directories("${t}" PRIVATE "${outdir}")
  else()
    target_include_directories("${t}" PUBLIC "$<BUILD_INTERFACE:${outdir}>")
  endif()
  # The property, not target_link_libraries: a target that used the plain
  # target_link_libraries signature may not get the keyword one.
  get_target_property(links "${t}" LINK_LIBRARIES)
  if(NOT links OR NOT "cgp::runtime" IN_LIST links)
    set_property(TARGET "${t}" APPEND PROPERTY LINK_LIBRARIES cgp::runtime)
    if(type STREQUAL "STATIC_LIBRARY" OR type STREQUAL "OBJECT_LIBRARY")
      set_property(TARGET "${t}" APPEND PROPERTY INTERFACE_LINK_LIBRARIES "$<LINK_ONLY:cgp::runtime>")
    endif()
  endif()
endfunction()
