# Sourced by Scripts/package.sh and Benchmarks/allocations/check.sh --static: the release build
# of the Debian packages, whose modules CI's allocation gate reuses. One set of flags for both,
# so neither recompiles the other's modules.
#   --static-swift-stdlib     the packaged programs need no Swift runtime on the target
#   -debug-info-format none   package.sh strips the programs, so DWARF for the optimised modules
#                             was compile and link time spent for nothing
#   SWIFT_DETERMINISTIC_HASHING=1 (SwiftPM's own process only)  SwiftPM 6.3 hands the package's
#                             traits to the compiler as -D flags in a Set's order, which a Swift
#                             process draws anew; each new build plan (another --product) then
#                             recompiled every module of the package (package.sh's cardd build
#                             redid all of cardctl's: 240 s). A fixed hash seed keeps the order.
#                             swiftlang/swift-package-manager#10525, fixed in SwiftPM 6.4.
release_build=(env SWIFT_DETERMINISTIC_HASHING=1 swift build -c release --static-swift-stdlib -debug-info-format none)
