import CardFlowBench
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension BenchMachine {
    /// This machine: host name, `uname`, the CPU model from /proc/cpuinfo and the online processors.
    static func current() -> BenchMachine {
        var name = utsname()
        uname(&name)
        func field<T>(_ value: T) -> String {
            withUnsafeBytes(of: value) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        let cpuModel = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        return BenchMachine(
            hostName: ProcessInfo.processInfo.hostName,
            operatingSystem: "\(field(name.sysname)) \(field(name.release)) \(field(name.machine))",
            cpuModel: cpuModel, processorCount: ProcessInfo.processInfo.activeProcessorCount)
    }
}
