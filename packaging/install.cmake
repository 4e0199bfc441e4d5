# `cmake --install build [--prefix DIR]`: the layout an installed xtap
# expects (common/install_paths.h finds it relative to the programs):
#   BINDIR/xtap, BINDIR/xtap-run            the driver and the static runner
#   LIBEXECDIR/xtap/xtap-kcatalog           the kernel catalog tool (Clang)
#   DATADIR/xtap/{tapsets,runtime-kmod,kbuild/features}
#   MANDIR, DATADIR/bash-completion, DOCDIR (docs, examples, copyright,
#   changelog), DATADIR/lintian/overrides
# xtap-vmbatch, the test engine's batch runner, is not installed.
# xtap-run is installed 0755, not setuid, and no group is created: running
# modules as a member of xtapusr is the administrator's choice
# (dpkg-statoverride ... 4750 /usr/bin/xtap-run; docs/safety.md,
# "Privilege model"), which dpkg then keeps across upgrades.

install(TARGETS xtap xtap-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS xtap-kcatalog RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/xtap)

set(XTAP_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/xtap)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tapsets/ DESTINATION ${XTAP_INSTALL_DATA}/tapsets)
# runtime-kmod/userspace/ (stand-in kernel headers for the translator's own
# build) is not part of the module's sources.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime-kmod/ DESTINATION ${XTAP_INSTALL_DATA}/runtime-kmod
        PATTERN userspace EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kbuild/features/ DESTINATION ${XTAP_INSTALL_DATA}/kbuild/features)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's policy asks every package for a compressed changelog (lintian's
# no-changelog); xtap is native, so it is changelog.gz, with this version.
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.in ${PROJECT_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.gz
                   COMMAND sh -c "gzip -9nc '${PROJECT_BINARY_DIR}/packaging/changelog' > '${PROJECT_BINARY_DIR}/packaging/changelog.gz'"
                   DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog VERBATIM)
add_custom_target(changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${PROJECT_BINARY_DIR}/packaging/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})
# What lintian reports and xtap does on purpose, each with its reason.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/lintian/xtap DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN "man" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

# Man pages are installed compressed, as Debian's policy asks (gzip -9n:
# no name or time stamp, so the package builds reproducibly).
set(XTAP_MAN_PAGES xtap.1 xtap-run.8 xtapprobes.7)
foreach(page ${XTAP_MAN_PAGES})
  string(REGEX REPLACE ".*\\.([0-9])$" "\\1" section ${page})
  set(src ${PROJECT_SOURCE_DIR}/docs/man/${page})
  set(gz ${PROJECT_BINARY_DIR}/man/${page}.gz)
  add_custom_command(OUTPUT ${gz}
                     COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/man
                     COMMAND sh -c "gzip -9nc '${src}' > '${gz}'"
                     DEPENDS ${src} VERBATIM)
  list(APPEND XTAP_MAN_GZ ${gz})
  install(FILES ${gz} DESTINATION ${CMAKE_INSTALL_MANDIR}/man${section})
endforeach()
add_custom_target(man_pages ALL DEPENDS ${XTAP_MAN_GZ})
# bash-completion loads a command's completion from a file named after it.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/xtap.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME xtap)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/xtap.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME xtap-run)
