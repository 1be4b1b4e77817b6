# Per-generator packaging choices (CPACK_PROJECT_CONFIG_FILE): the .deb installs
# under /opt/aorta_suite; the tarball stays relocatable, rooted at its own folder.
if(CPACK_GENERATOR STREQUAL "DEB")
  set(CPACK_PACKAGING_INSTALL_PREFIX /opt/aorta_suite)
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX /)
endif()
