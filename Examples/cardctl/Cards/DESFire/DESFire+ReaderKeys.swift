import ArgumentParser
import CardFlowDESFire
import CardFlowUFR

// The `desfire` subcommands run by a uFR reader itself (`--reader-key`, `--reader-runs`): the seed
// app's "reader key" mode. Each mirrors its APDU twin in DESFireCommand.swift with the uFR
// command; what the uFR commands cannot do is refused with the reason.

/// Refuses options the reader's DESFire commands have no field for.
private func refuseForReader(_ diversification: DESFireDiversificationOptions? = nil, backup: Bool = false) throws {
    if diversification?.diversify == true {
        throw InputError(description: "--diversify derives keys in CardFlow; the uFR reader's commands cannot")
    }
    if backup { throw InputError(description: "the uFR reader's DESFire commands create standard data files only") }
}

extension DESFireFormat {
    func runOnReader() async throws {
        let piccKey = try readerKeys.key(or: try await keys.key() ?? keys.piccKey())
        try await withUFRDESFire(global) { desfire in try await desfire.format(piccKey: piccKey) }
        if global.json { try Output.json(DESFireOutput.Formatted()) } else { Output.standardOutput("card formatted") }
    }
}

extension DESFireDESToAES {
    func runOnReader() async throws {
        let current = try readerKeys.key(or: try keys.piccKey())
        let new: UFRDESFireKey
        if let slot = changed.newSlot {
            new = try .readerSlot(slot)
        } else {
            new = try DESFireReaderKeyOptions.frameKey(try await keys.key() ?? .defaultAES)
            guard new.type == .aes else { throw InputError(description: "the new key must be AES") }
        }
        try await withUFRDESFire(global) { desfire in try await desfire.changePICCMasterKey(from: current, to: new) }
        if global.json {
            try Output.json(DESFireOutput.PICCKeyChanged(version: 0))
        } else {
            Output.standardOutput("PICC master key is now AES (\(new))")
        }
    }
}

extension DESFireFreeMemory {
    func runOnReader() async throws {
        let free = try await withUFRDESFire(global) { desfire in try await desfire.freeMemory() }
        if global.json {
            try Output.json(DESFireOutput.FreeMemory(freeMemory: Int(free)))
        } else {
            Output.standardOutput("\(free) bytes free")
        }
    }
}

extension DESFireCreateApp {
    func runOnReader() async throws {
        let aid = try application.aid()
        guard let type = DESFireKeyType(name: appKeyType) else {
            throw InputError(description: "unknown key type '\(appKeyType)'")
        }
        guard let settingsByte = UInt8(settings, radix: 16) else {
            throw InputError(description: "--settings is one hex byte")
        }
        let piccKey = noAuth ? nil : try readerKeys.key(or: try keys.piccKey())
        let keyType = try DESFireReaderKeyOptions.keyType(type)
        try await withUFRDESFire(global) { desfire in
            try await desfire.createApplication(
                aid.value, settings: settingsByte, keyCount: keyCount, keyType: keyType, piccKey: piccKey)
        }
        if global.json {
            try Output.json(DESFireOutput.ApplicationCreated(aid: "\(aid)", keyCount: keyCount, keyType: "\(type)"))
        } else {
            Output.standardOutput("application \(aid) created")
        }
    }
}

extension DESFireCreateFile {
    func runOnReader() async throws {
        try refuseForReader(diversification, backup: backup)
        let aid = try application.aid()
        let mode = try parseCommMode(comm)
        guard access.count == 4, let rights = UInt16(access, radix: 16) else {
            throw InputError(description: "--access is 4 hex digits")
        }
        guard let size32 = UInt32(exactly: size) else { throw InputError(description: "--size is out of range") }
        let applicationKey = try readerKeys.key(orIfGiven: try await keys.key())
        try await withUFRDESFire(global) { desfire in
            try await desfire.createStandardFile(
                file, application: aid.value, size: size32, accessRights: rights,
                communication: DESFireReaderKeyOptions.communication(mode), applicationKey: applicationKey)
        }
        if global.json {
            try Output.json(DESFireOutput.FileCreated(aid: "\(aid)", file: file, size: size, comm: "\(mode)"))
        } else {
            Output.standardOutput("file \(file) created in \(aid)")
        }
    }
}

extension DESFireRead {
    func runOnReader() async throws {
        try refuseForReader(diversification)
        guard length > 0 else {
            throw InputError(description: "--length is needed with the reader's read (it does not read file sizes)")
        }
        let aid = try application.aid()
        let mode = try comm.map(parseCommMode)
        let key = try readerKeys.key(orIfGiven: try await keys.key())
        let data = try await withUFRDESFire(global) { [keys] desfire in
            try await desfire.read(
                application: aid.value, file: file, offset: offset, length: length,
                communication: DESFireReaderKeyOptions.communication(mode), key: key, keyNumber: keys.keyNumber)
        }
        let output = DESFireOutput.FileData(data)
        if global.json {
            try Output.json(output)
        } else {
            Output.standardOutput(hex ? output.data : output.text ?? output.data)
        }
    }
}

extension DESFireWrite {
    func runOnReader() async throws {
        try refuseForReader(diversification)
        let aid = try application.aid()
        let bytes = try input.bytes()
        let mode = try comm.map(parseCommMode)
        let key = try readerKeys.key(orIfGiven: try await keys.key())
        try await withUFRDESFire(global) { [keys] desfire in
            try await desfire.write(
                bytes, application: aid.value, file: file, offset: offset,
                communication: DESFireReaderKeyOptions.communication(mode), key: key, keyNumber: keys.keyNumber)
        }
        if global.json {
            try Output.json(DESFireOutput.Written(written: bytes.count))
        } else {
            Output.standardOutput("\(bytes.count) bytes written")
        }
    }
}

extension DESFireChangeKey {
    func runOnReader() async throws {
        try refuseForReader(diversification)
        let aid = try application.aid()
        let provided = try await keys.key() ?? (aid == .picc ? keys.piccKey() : nil)
        guard let authentication = try readerKeys.key(orIfGiven: provided) else {
            throw InputError(
                description: "give the authentication key with --reader-key, --key, --key-ascii or --key-slot")
        }
        let new: UFRDESFireKey
        if let slot = changed.newSlot {
            new = try .readerSlot(slot)
        } else {
            guard
                let given = try await DESFireKeyOptions.resolve(
                    hex: newKeyHex, ascii: newKeyASCII, slot: newKeySlot, type: newKeyType, store: keys.keyStore,
                    option: "--new-key")
            else {
                throw InputError(
                    description: "give the new key with --new-reader-key, --new-key, --new-key-ascii or --new-key-slot")
            }
            new = try DESFireReaderKeyOptions.frameKey(given)
        }
        let old: UFRDESFireKey? =
            if let slot = changed.oldSlot {
                try .readerSlot(slot)
            } else {
                try oldKeyHex.map {
                    try DESFireReaderKeyOptions.frameKey(
                        try DESFireKeyOptions.parse(hex: $0, type: newKeyType, option: "--old-key"))
                }
            }
        let target = changeKeyNumber ?? keys.keyNumber
        try await withUFRDESFire(global) { [keys] desfire in
            try await desfire.changeKey(
                application: aid.value, keyNumber: target, to: new, authenticatingWith: authentication,
                authenticationKeyNumber: keys.keyNumber, oldKey: old)
        }
        if global.json {
            try Output.json(
                DESFireOutput.KeyChanged(aid: "\(aid)", keyNo: target, keyType: "\(new.type)", version: 0))
        } else {
            Output.standardOutput("key \(target) of \(aid) changed (\(new))")
        }
    }
}
