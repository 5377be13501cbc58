# Install.cmake - what `cmake --install BUILD --prefix P` puts in P (interface.md
# section 4): P/bin/cgp-ad, P/include/cgp/, P/lib/libcgp_rt.a and the package
# files in P/lib/cmake/CgpAD/, so that find_package(CgpAD) gives cgp::runtime,
# cgp::cgp-ad and CGP_AD_EXECUTABLE. Literal bin/lib/include: no multiarch dirs.
include(CMakePackageConfigHelpers)
set(CGP_AD_INSTALL_CMAKEDIR lib/cmake/CgpAD)

install(TARGETS cgp_rt EXPORT CgpADTargets ARCHIVE DESTINATION lib)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cgp DESTINATION include)

# The tool is optional (-DCGP_AD_BUILD_TOOL=OFF builds the runtime alone).
set(CGP_AD_WITH_TOOL OFF)
if(TARGET cgp-ad)
  install(TARGETS cgp-ad RUNTIME DESTINATION bin)
  set(CGP_AD_WITH_TOOL ON)
endif()

install(EXPORT CgpADTargets NAMESPACE cgp:: FILE CgpADTargets.cmake
        DESTINATION ${CGP_AD_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/CgpADConfig.cmake.in
  ${PROJECT_BINARY_DIR}/CgpADConfig.cmake INSTALL_DESTINATION ${CGP_AD_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/CgpADConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/CgpADConfig.cmake ${PROJECT_BINARY_DIR}/CgpADConfigVersion.cmake
        DESTINATION ${CGP_AD_INSTALL_CMAKEDIR})

# cgp_ad_add_gradients() (interface.md section 4) and the step its commands run.
install(FILES ${CMAKE_CURRENT_LIST_DIR}/CgpADFunctions.cmake ${CMAKE_CURRENT_LIST_DIR}/CgpADDepfile.cmake
        DESTINATION ${CGP_AD_INSTALL_CMAKEDIR})
