import Foundation

/// USB devices as Linux's sysfs shows them (/sys/bus/usb/devices): which kernel driver is bound
/// to an interface.
struct SysfsUSB {
    var root = "/sys/bus/usb/devices"

    /// The driver bound to interface `interface` of the device at `bus`/`address`: a kernel
    /// module such as `pn533_usb`, `usbfs` while a program (pcscd, cardctl) has claimed it, or
    /// nil when none is bound (or sysfs does not show the device).
    func driver(bus: UInt8, address: UInt8, interface: UInt8) -> String? {
        let fileManager = FileManager.default
        guard let entries = try? fileManager.contentsOfDirectory(atPath: root) else { return nil }
        // Devices are "1-1.2"; their interfaces are "1-1.2:1.0" (configuration 1, interface 0).
        guard
            let device = entries.first(where: { entry in
                !entry.contains(":") && number(entry, "busnum") == Int(bus) && number(entry, "devnum") == Int(address)
            })
        else { return nil }
        for entry in entries where entry.hasPrefix(device + ":") {
            guard let text = contents(entry, "bInterfaceNumber"), Int(text, radix: 16) == Int(interface) else {
                continue
            }
            let link = root + "/" + entry + "/driver"
            guard let target = try? fileManager.destinationOfSymbolicLink(atPath: link) else { return nil }
            return (target as NSString).lastPathComponent
        }
        return nil
    }

    private func contents(_ entry: String, _ file: String) -> String? {
        (try? String(contentsOfFile: root + "/" + entry + "/" + file, encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func number(_ entry: String, _ file: String) -> Int? {
        contents(entry, file).flatMap { Int($0) }
    }
}
