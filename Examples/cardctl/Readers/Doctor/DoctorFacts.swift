/// What `cardctl doctor` found on this machine: gathered by ``DoctorProbe``, judged by
/// ``DoctorChecks`` (a pure function of these facts, so each verdict can be tested with facts
/// made up for it).
struct DoctorFacts: Sendable, Equatable {
    /// A device node's permissions as seen by this process.
    struct NodeAccess: Sendable, Equatable {
        /// True when this process may open it for reading and writing.
        var readWrite: Bool
        /// `crw-rw-r--`-style mode, owner and group names.
        var mode: String
        var owner: String
        var group: String
    }

    /// What happened when doctor tried to claim a reader's interface.
    enum Claim: Sendable, Equatable {
        case claimed
        case busy(String)
        case accessDenied(String)
        case failed(String)
        /// Not tried: a kernel driver or another program holds it (claiming would detach the
        /// kernel driver, or fail).
        case notTried
    }

    struct USBReader: Sendable, Equatable {
        var id: String
        var name: String
        var vendorProduct: String
        var devicePath: String
        /// Nil when the node is missing (no usbfs in this container, say).
        var node: NodeAccess?
        /// The driver sysfs shows bound to the CCID interface: a kernel module, `usbfs` while a
        /// program claims it, or nil.
        var kernelDriver: String?
        /// Processes (this user's, or all as root) with the node open.
        var holders: [ProcessHolder]
        var claim: Claim
    }

    /// The file or socket at a path.
    enum PathState: Sendable, Equatable {
        case absent
        /// A regular file: permission bits and whether this user owns it.
        case file(mode: UInt32, ownedByUser: Bool)
        case socket
        /// Something else (a directory, a symbolic link, a device).
        case other
    }

    /// Whether a Unix socket accepts connections.
    enum SocketState: Sendable, Equatable {
        case absent
        case notASocket
        case accepting
        /// It exists but connecting failed (`ECONNREFUSED`: nothing listens, a stale socket).
        case refused(String)
    }

    // USB.
    /// Why libusb could not list devices; nil when it could.
    var usbError: String?
    var readers: [USBReader] = []
    /// Where the udev rule is installed, nil when in none of the rules directories.
    var udevRule: String?
    /// Groups this user belongs to (names).
    var userGroups: [String] = []
    var isRoot = false

    // PC/SC.
    var pcscdSocketPath = "/run/pcscd/pcscd.comm"
    var pcscdSocket: PathState = .absent
    var pcscdProcesses: [ProcessHolder] = []
    var pcscdInstalled = false

    // vpcd.
    var vpcdPort: UInt16 = 35963
    /// Whether something listens on the vpcd port, and who (empty when it is not visible).
    var vpcdListening = false
    var vpcdListeners: [ProcessHolder] = []
    /// Where vsmartcard's vpcd driver for pcscd is installed, if it is.
    var vpcdDriver: String?

    // Key store.
    var keyStorePath: String?
    var keyStore: PathState = .absent

    // cardd.
    var daemonSocketPath = ""
    /// True when `--socket` named it (so it is expected to be there).
    var daemonSocketGiven = false
    var daemonSocket: SocketState = .absent

    // Reader choice.
    var readerChoice: ReaderChoice?
    /// Why the reader choice could not be made (a bad cardctl.json).
    var readerChoiceError: String?
}
