# Sourced by Scripts/package.sh and Benchmarks/allocations/check.sh --static: the release build
# of the Debian packages, whose modules CI's allocation gate reuses. One set of flags for both,
# so neither recompiles the other's modules.
#   --static-swift-stdlib     the packaged programs need no Swift runtime on the target
#   -debug-info-format none   package.sh strips the programs, so DWARF for the optimised modules
#                             was compile and link time spent for nothing
release_build=(swift build -c release --static-swift-stdlib -debug-info-format none)
