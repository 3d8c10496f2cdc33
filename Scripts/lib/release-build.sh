# Sourced by Scripts/package.sh and Benchmarks/allocations/check.sh --static: the release build
# of the Debian packages, whose modules CI's allocation gate reuses. One set of flags for both,
# so neither recompiles the other's modules.
#   --static-swift-stdlib     the packaged programs need no Swift runtime on the target
#   -debug-info-format none   package.sh strips the programs, so DWARF for the optimised modules
#                             was compile and link time spent for nothing
#   --scratch-path .build-release  a build directory of its own: SwiftPM locks its build directory
#                             for as long as it runs, and Scripts/test.sh compiles this build in the
#                             background while the tests run on the debug build in .build (the two
#                             cannot share modules: --static-swift-stdlib compiles every module
#                             against the static runtime's resource directory)
release_build=(swift build -c release --static-swift-stdlib -debug-info-format none --scratch-path .build-release)
