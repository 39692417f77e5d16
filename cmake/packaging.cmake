# The .deb that scripts/package.sh builds with `cpack`: what `cmake --install` installs (the
# binary, vramscope(1), bash and zsh completions, the docs and examples), with dependencies on
# the Debian shared libraries the binary links found by dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vramscope)
set(CPACK_PACKAGE_VENDOR "vramscope")
set(CPACK_PACKAGE_CONTACT "vramscope maintainers <vramscope@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "predict, measure and explain the GPU memory of distributed training jobs")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/vramscope/vramscope")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Where CUDA is found, libvramscope_trace.so links the toolkit's CUPTI, which no Debian package
# provides: its folder is private to dpkg-shlibdeps, and the library finds it by rpath.
if(TARGET vramscope_cupti_trace)
  get_target_property(cupti_dirs vramscope_cupti_trace INSTALL_RPATH)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${cupti_dirs})
endif()
include(CPack)
