# `cpack -G DEB` in the build directory (after building): xtap_VERSION_amd64.deb
# with what `cmake --install` lays out (packaging/install.cmake).
# Depends: the shared libraries of xtap and xtap-kcatalog, found by
# dpkg-shlibdeps (libbpf, libclang-cpp, libLLVM, libdw ...; xtap-run is
# static), and binutils (strip, for --vm and signed modules).
# Recommends: what building a module needs (gcc, make, the kernel's headers)
# and reading a /boot/vmlinuz's BTF (lz4 for 6.1, zstd for 6.12).
# Suggests: what --vm needs, debuginfo for @file:line probes, openssl for
# signing keys.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME xtap)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "xtap")
set(CPACK_PACKAGE_CONTACT "xtap maintainers <maintainers@users.noreply.a-seed-e3422dc9.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "SystemTap-style dynamic tracer for Linux")
# The extended description; CPack puts the summary above it.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "xtap translates probe scripts in SystemTap's language into C, builds a
kernel module for the target kernel (typed from its headers and BTF, no
debuginfo needed), loads it and relays the output. xtap-run runs prebuilt
modules and multi-kernel bundles on hosts without a compiler; --vm runs a
script in a throwaway QEMU VM.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # xtap_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "binutils")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "gcc, make, linux-headers-amd64 | linux-headers-cloud-amd64 | linux-headers-generic, lz4, zstd")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "qemu-system-x86, busybox-static, cpio, linux-image-amd64-dbg, openssl, openssh-client, ansible")
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/COPYING)
# /usr, as Debian packages install; the programs find their data relative
# to themselves, so the prefix is not compiled in.
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
include(CPack)
