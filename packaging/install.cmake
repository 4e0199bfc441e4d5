# `cmake --install build [--prefix DIR]`: the layout an installed xtap
# expects (common/install_paths.h finds it relative to the programs):
#   BINDIR/xtap, BINDIR/xtap-run            the driver and the static runner
#   LIBEXECDIR/xtap/xtap-kcatalog           the kernel catalog tool (Clang)
#   DATADIR/xtap/{tapsets,runtime-kmod,kbuild/features}
#   MANDIR, DATADIR/bash-completion, DOCDIR (docs, examples, copyright)
# xtap-vmbatch, the test engine's batch runner, is not installed.

install(TARGETS xtap xtap-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS xtap-kcatalog RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/xtap)

set(XTAP_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/xtap)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/tapsets/ DESTINATION ${XTAP_INSTALL_DATA}/tapsets)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime-kmod/ DESTINATION ${XTAP_INSTALL_DATA}/runtime-kmod)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/kbuild/features/ DESTINATION ${XTAP_INSTALL_DATA}/kbuild/features)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        PATTERN "man" EXCLUDE)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)

install(FILES ${PROJECT_SOURCE_DIR}/docs/man/xtap.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/xtap-run.8 DESTINATION ${CMAKE_INSTALL_MANDIR}/man8)
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/xtapprobes.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
# bash-completion loads a command's completion from a file named after it.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/xtap.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME xtap)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/completion/xtap.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME xtap-run)
