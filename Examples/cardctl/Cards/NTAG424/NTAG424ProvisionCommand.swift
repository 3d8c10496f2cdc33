import ArgumentParser
import CardFlow
import CardFlowDESFire

extension NTAG424Command {
    /// `cardctl ntag424 provision`: the whole SUN personalisation as one resumable flow.
    struct Provision: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "provision",
            abstract:
                "Personalise a tag for SUN: install the keys, write the URL, switch SDM on, change key 0, verify a tap.",
            discussion: """
                Steps: identify, install keys 1-4, write URL, switch SUN on, change key 0 (with --new-master-key), \
                verify SUN (the tag read as a phone reads it, its message verified with the new keys). A tag lifted \
                mid-way resumes where it was when put back (within --wait); keys already in place (by version) \
                are not changed again. Keys: hex with --key-version (default 1), or key-store slots (their versions). \
                The URL may place the mirrors: 'https://example.com/tap?picc_data={picc}&cmac={mac}'; without \
                placeholders ?e=…&c=… is appended. Progress on stderr; with --json one JSON object on stdout.
                """)
        @OptionGroup(title: "Global Options") var global: GlobalOptions
        @OptionGroup var keys: KeyOptions
        @Option(help: "The URL, with or without https://; {picc} and {mac} place the mirrors.") var url: String
        @OptionGroup var newKeys: NewKeyOptions

        func validate() throws {
            guard keys.keyNumber == 0 else {
                throw ValidationError("provisioning authenticates with key 0, not --key-no")
            }
        }

        func run() async throws {
            let plan = NTAG424SUNPersonalisation(
                template: try NTAG424SUNTemplate(url: url), masterKey: try await keys.key(),
                metaReadKey: try await newKeys.required(.meta, store: keys.keyStore),
                fileReadKey: try await newKeys.required(.file, store: keys.keyStore),
                otherKeys: try await newKeys.otherKeys(store: keys.keyStore),
                newMasterKey: try await newKeys.key(.master, store: keys.keyStore))
            try plan.validate()
            var policy = global.policy
            if global.wait == nil { policy.cardReturnTimeout = .seconds(10) }
            let connection = try await ReaderConnection.open(
                global, logger: CommandLogging.logger(trace: global.trace), traceToStandardError: true)
            let report = await FlowRunReport.run(
                plan.flow(), on: try connection.primary, policy: policy, trace: global.trace)
            try await connection.close()
            switch report.outcome {
            case .success(let result):
                if global.json {
                    try Output.json(
                        NTAG424Output.Provisioned(
                            uid: result.uid.hexString, keysChanged: result.changedKeys,
                            piccDataOffset: plan.template.piccDataOffset, macOffset: plan.template.macOffset,
                            url: result.url, readCounter: result.message.readCounter, events: report.events))
                } else {
                    let counter = result.message.readCounter.map(String.init) ?? "null"
                    Output.standardOutput(
                        "provisioned \(result.uid.hexString): SUN verified (read counter \(counter)) \(result.url)")
                }
            case .failure(let failure):
                if global.json {
                    try Output.json(FlowFailedOutput(error: "\(surfacedFlowError(failure))", events: report.events))
                }
                throw surfacedFlowError(failure)
            }
        }
    }

    /// The keys a provisioning installs: each as hex (with ``keyVersion``) or a key-store slot.
    struct NewKeyOptions: ParsableArguments {
        enum Role: String, CaseIterable {
            case meta = "meta-key"
            case file = "file-key"
            case key3 = "key3"
            case key4 = "key4"
            case master = "new-master-key"
        }

        @Option(name: .customLong("meta-key"), help: ArgumentHelp("Key 2, SDMMetaReadKey, in hex.", valueName: "HEX"))
        var metaHex: String?
        @Option(name: .customLong("meta-key-slot"), help: ArgumentHelp("Key 2 from key-store slot N.", valueName: "N"))
        var metaSlot: Int?
        @Option(name: .customLong("file-key"), help: ArgumentHelp("Key 1, SDMFileReadKey, in hex.", valueName: "HEX"))
        var fileHex: String?
        @Option(name: .customLong("file-key-slot"), help: ArgumentHelp("Key 1 from key-store slot N.", valueName: "N"))
        var fileSlot: Int?
        @Option(name: .customLong("key3"), help: ArgumentHelp("Key 3 in hex (optional).", valueName: "HEX"))
        var key3Hex: String?
        @Option(name: .customLong("key3-slot"), help: ArgumentHelp("Key 3 from key-store slot N.", valueName: "N"))
        var key3Slot: Int?
        @Option(name: .customLong("key4"), help: ArgumentHelp("Key 4 in hex (optional).", valueName: "HEX"))
        var key4Hex: String?
        @Option(name: .customLong("key4-slot"), help: ArgumentHelp("Key 4 from key-store slot N.", valueName: "N"))
        var key4Slot: Int?
        @Option(
            name: .customLong("new-master-key"),
            help: ArgumentHelp("Key 0's new value in hex, changed last (optional).", valueName: "HEX"))
        var masterHex: String?
        @Option(
            name: .customLong("new-master-key-slot"),
            help: ArgumentHelp("Key 0's new value from slot N.", valueName: "N"))
        var masterSlot: Int?
        @Option(name: .customLong("key-version"), help: "The version byte of keys given in hex (not 0).")
        var keyVersion: UInt8 = 1
        /// The key of `role`, nil when not given; slots are read from the key store at `store`
        /// (`--key-store`, else the default one).
        func key(_ role: Role, store: String?) async throws -> DESFireKey? {
            let (hex, slot): (String?, Int?) =
                switch role {
                case .meta: (metaHex, metaSlot)
                case .file: (fileHex, fileSlot)
                case .key3: (key3Hex, key3Slot)
                case .key4: (key4Hex, key4Slot)
                case .master: (masterHex, masterSlot)
                }
            guard
                let key = try await DESFireKeyOptions.resolve(
                    hex: hex, ascii: nil, slot: slot, type: "aes", store: store, option: "--\(role.rawValue)")
            else { return nil }
            // A slot's key has its own version; a hex key gets --key-version.
            return slot != nil ? key : try DESFireKey(type: .aes, bytes: key.bytes, version: keyVersion)
        }

        func required(_ role: Role, store: String?) async throws -> DESFireKey {
            guard let key = try await key(role, store: store) else {
                throw InputError(description: "give --\(role.rawValue) HEX or --\(role.rawValue)-slot N")
            }
            return key
        }

        func otherKeys(store: String?) async throws -> [UInt8: DESFireKey] {
            var keys: [UInt8: DESFireKey] = [:]
            if let key = try await key(.key3, store: store) { keys[3] = key }
            if let key = try await key(.key4, store: store) { keys[4] = key }
            return keys
        }
    }
}
