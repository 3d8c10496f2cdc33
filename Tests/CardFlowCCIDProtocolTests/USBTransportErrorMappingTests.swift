import CCardFlowLibUSB
import Testing

@testable import CardFlowCCIDProtocol

@Suite("libusb error mapping")
struct USBTransportErrorMappingTests {
    static let path = "/dev/bus/usb/001/004"

    @Test func busyNamesTheLikelyOwnersAndTheFix() {
        let error = LibUSBErrorMapping.transportError(
            LIBUSB_ERROR_BUSY.rawValue, operation: "claiming interface 0",
            devicePath: Self.path, interfaceNumber: 0)
        guard case .busy(let detail) = error else {
            Issue.record("expected .busy, got \(error)")
            return
        }
        #expect(
            detail == "interface 0 of /dev/bus/usb/001/004 is claimed by another program — usually pcscd "
                + "(stop it: systemctl stop pcscd.socket pcscd) or the pn533_usb kernel driver (rmmod pn533_usb pn533 or blacklist it)"
        )
        #expect(error.description.hasPrefix("USB interface is busy: interface 0 of"))
    }

    @Test func accessNamesTheNodeAndTheFix() {
        let error = LibUSBErrorMapping.transportError(
            LIBUSB_ERROR_ACCESS.rawValue, operation: "opening", devicePath: Self.path)
        #expect(
            error
                == .accessDenied(
                    detail: "no permission to open /dev/bus/usb/001/004 — install a udev rule giving "
                        + "your user access (see Examples/cardd) or run as root"))
    }

    @Test func otherSynchronousErrors() {
        func map(_ code: libusb_error) -> USBTransportError {
            LibUSBErrorMapping.transportError(
                code.rawValue, operation: "submitting a bulk-IN 0x82 transfer",
                devicePath: Self.path, endpoint: "bulk-IN 0x82", timeout: .seconds(3))
        }
        #expect(map(LIBUSB_ERROR_NO_DEVICE) == .noDevice)
        #expect(map(LIBUSB_ERROR_TIMEOUT) == .timeout(endpoint: "bulk-IN 0x82", after: .seconds(3)))
        #expect(map(LIBUSB_ERROR_PIPE) == .stall(endpoint: "bulk-IN 0x82"))
        #expect(map(LIBUSB_ERROR_OVERFLOW) == .overflow(endpoint: "bulk-IN 0x82"))
        #expect(map(LIBUSB_ERROR_IO) == .io("submitting a bulk-IN 0x82 transfer failed: LIBUSB_ERROR_IO"))
        #expect(map(LIBUSB_ERROR_NOT_FOUND) == .io("submitting a bulk-IN 0x82 transfer failed: LIBUSB_ERROR_NOT_FOUND"))
    }

    @Test func transferStatuses() {
        func map(_ status: libusb_transfer_status) -> USBTransportError {
            LibUSBErrorMapping.transportError(status: status, endpoint: "bulk-IN 0x82", timeout: .milliseconds(3000))
        }
        #expect(map(LIBUSB_TRANSFER_TIMED_OUT) == .timeout(endpoint: "bulk-IN 0x82", after: .seconds(3)))
        #expect(map(LIBUSB_TRANSFER_STALL) == .stall(endpoint: "bulk-IN 0x82"))
        #expect(map(LIBUSB_TRANSFER_NO_DEVICE) == .noDevice)
        #expect(map(LIBUSB_TRANSFER_OVERFLOW) == .overflow(endpoint: "bulk-IN 0x82"))
        #expect(map(LIBUSB_TRANSFER_CANCELLED) == .cancelled)
        #expect(map(LIBUSB_TRANSFER_ERROR) == .io("bulk-IN 0x82 transfer failed (LIBUSB_TRANSFER_ERROR)"))
    }

    @Test func endpointNames() {
        #expect(LibUSBErrorMapping.endpointName("bulk-IN", 0x82) == "bulk-IN 0x82")
        #expect(LibUSBErrorMapping.endpointName("bulk-OUT", 0x02) == "bulk-OUT 0x02")
    }

    @Test func timeoutsInWholeMilliseconds() {
        #expect(LibUSBTransport.milliseconds(.seconds(3)) == 3000)
        #expect(LibUSBTransport.milliseconds(.milliseconds(1500)) == 1500)
        // Rounded up, never 0 (which libusb reads as "no timeout").
        #expect(LibUSBTransport.milliseconds(.microseconds(1)) == 1)
        #expect(LibUSBTransport.milliseconds(.microseconds(1001)) == 2)
        #expect(LibUSBTransport.milliseconds(.zero) == 1)
        #expect(LibUSBTransport.milliseconds(.seconds(-1)) == 1)
        // Beyond what libusb can express: wait forever.
        #expect(LibUSBTransport.milliseconds(.seconds(4_294_968)) == 0)
        #expect(LibUSBTransport.milliseconds(.seconds(Int64.max)) == 0)
        #expect(LibUSBTransport.milliseconds(.seconds(4_294_967)) == 4_294_967_000)
    }

    @Test func bulkInBuffersAreWholePackets() {
        #expect(LibUSBTransport.wholePackets(271, packetSize: 64) == 320)
        #expect(LibUSBTransport.wholePackets(64, packetSize: 64) == 64)
        #expect(LibUSBTransport.wholePackets(65, packetSize: 64) == 128)
        #expect(LibUSBTransport.wholePackets(0, packetSize: 64) == 64)
        #expect(LibUSBTransport.wholePackets(271, packetSize: 512) == 512)
        #expect(LibUSBTransport.wholePackets(10, packetSize: 0) == 10)
    }
}
