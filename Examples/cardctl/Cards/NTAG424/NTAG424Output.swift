/// What the `ntag424` commands print with `--json`, one type per answer, keys in declaration
/// order (``KeyOrderedJSONEncoder``).
enum NTAG424Output {
    /// `ntag424 info`.
    struct Info: Encodable {
        struct File: Encodable {
            let file: UInt8
            let settings: String
            let size: UInt32
        }

        let files: [File]
        @NullIfAbsent var sdmReadCounter: UInt32?
        let uid: String
        let version: String
    }

    /// `ntag424 read`: the NDEF file, and its URI when it holds one.
    struct NDEFFile: Encodable {
        let file: String
        @NullIfAbsent var uri: String?
    }

    /// `ntag424 sun`: where the mirrors are in the NDEF file.
    struct SUNEnabled: Encodable {
        let piccDataOffset: UInt32
        let macOffset: UInt32
    }

    /// `ntag424 verify`.
    struct Verified: Encodable {
        @NullIfAbsent var readCounter: UInt32?
        let uid: String
        let valid = true
    }

    /// `ntag424 verify-url`: the message, and whether its counter was checked and seen before.
    struct URLVerified: Encodable {
        let valid = true
        let uid: String
        @NullIfAbsent var readCounter: UInt32?
        let replayChecked: Bool
        let replayed: Bool
        @NullIfAbsent var lastCounter: UInt32?
    }

    /// `ntag424 change-key`.
    struct KeyChanged: Encodable {
        let changed: UInt8
        let version: UInt8
    }

    /// `ntag424 provision` when the flow succeeded.
    struct Provisioned: Encodable {
        let ok = true
        let uid: String
        let keysChanged: Bool
        let piccDataOffset: UInt32
        let macOffset: UInt32
        let url: String
        @NullIfAbsent var readCounter: UInt32?
        let events: [EventOutput]
    }
}
