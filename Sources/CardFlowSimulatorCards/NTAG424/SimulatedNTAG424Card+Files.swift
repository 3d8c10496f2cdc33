/// File commands: native GetFileSettings, ChangeFileSettings, ReadData, WriteData,
/// GetFileCounters; ISO SELECT, READ BINARY, UPDATE BINARY; the SDM read.
extension SimulatedNTAG424Card {
    // MARK: Native

    /// GetFileSettings (F5), CommMode.MAC in a session.
    mutating func getFileSettings(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        if session != nil { try requireSession() }
        let (header, payload) = try unwrapCommand(ins: 0xF5, data, headerLength: 1, mode: .mac)
        guard payload.isEmpty else { throw .lengthError }
        let file = files[try fileIndex(header[0])]
        return try wrapResponse(file.settings.getFileSettingsAnswer(fileSize: file.data.count), mode: .mac)
    }

    /// ChangeFileSettings (5F): CommMode.Full through the Change key, plain if Change is free.
    mutating func changeFileSettings(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        guard let number = data.first else { throw .lengthError }
        let index = try fileIndex(number)
        let mode = try grant([files[index].settings.accessRights.change], fileMode: .full)
        let (_, payload) = try unwrapCommand(ins: 0x5F, data, headerLength: 1, mode: mode)
        let settings = try SimulatedNTAG424FileSettings.parse(payload)
        try settings.validate(fileNumber: number, fileSize: files[index].data.count)
        files[index].settings = settings
        sdmImage = nil
        return try wrapResponse([], mode: mode)
    }

    /// ReadData (AD): `FileNo Offset(3) Length(3)`, Length 0 reads to the end.
    mutating func readData(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        guard data.count >= 7 else { throw .lengthError }
        let index = try fileIndex(data[0])
        let rights = files[index].settings.accessRights
        let mode = try grant([rights.read, rights.readWrite], fileMode: files[index].settings.communicationMode)
        let (header, payload) = try unwrapCommand(ins: 0xAD, data, headerLength: 7, mode: mode)
        guard payload.isEmpty else { throw .lengthError }
        let range = try fileRange(header, size: files[index].data.count, wholeFileIfZero: true)
        var content = files[index].data
        if session == nil, files[index].number == 2 { content = try sdmRead() }
        return try wrapResponse(Array(content[range]), mode: mode)
    }

    /// WriteData (8D): `FileNo Offset(3) Length(3) Data` in the file's mode.
    mutating func writeData(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        guard data.count >= 7 else { throw .lengthError }
        let index = try fileIndex(data[0])
        let rights = files[index].settings.accessRights
        let mode = try grant([rights.write, rights.readWrite], fileMode: files[index].settings.communicationMode)
        let (header, payload) = try unwrapCommand(ins: 0x8D, data, headerLength: 7, mode: mode)
        let range = try fileRange(header, size: files[index].data.count, wholeFileIfZero: false)
        guard payload.count == range.count else { throw .lengthError }
        files[index].data.replaceSubrange(range, with: payload)
        if files[index].number == 2 { sdmImage = nil }
        return try wrapResponse([], mode: mode)
    }

    /// GetFileCounters (F6): SDMReadCtr and two reserved bytes, CommMode.Full through SDMCtrRet.
    mutating func getFileCounters(_ data: [UInt8]) throws(NTAG424Status) -> [UInt8] {
        try requireApplication()
        guard let number = data.first else { throw .lengthError }
        let index = try fileIndex(number)
        guard let sdm = files[index].settings.sdm else { throw .permissionDenied }
        let mode = try grant([sdm.counterRetrievalKey], fileMode: .full)
        let (_, payload) = try unwrapCommand(ins: 0xF6, data, headerLength: 1, mode: mode)
        guard payload.isEmpty else { throw .lengthError }
        return try wrapResponse(NTAG424SDMMirror.counterBytes(files[index].sdmReadCounter) + [0x00, 0x00], mode: mode)
    }

    /// Offset(3) and Length(3) of a ReadData/WriteData header as a range inside the file.
    private func fileRange(_ header: [UInt8], size: Int, wholeFileIfZero: Bool) throws(NTAG424Status) -> Range<Int> {
        let offset = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16
        var length = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16
        if length == 0 {
            guard wholeFileIfZero else { throw .lengthError }
            length = size - offset
        }
        guard offset < size, length > 0, length <= size - offset else { throw .boundaryError }
        return offset..<offset + length
    }

    // MARK: SDM

    /// The NDEF file as an unauthenticated read sees it: the first read after a selection
    /// counts SDMReadCtr and mirrors; later reads of the same selection see the same image.
    mutating func sdmRead() throws(NTAG424Status) -> [UInt8] {
        if let sdmImage { return sdmImage }
        guard let sdm = files[1].settings.sdm else { return files[1].data }
        let counter = files[1].sdmReadCounter
        guard counter < (sdm.readCounterLimit ?? 0xFF_FFFF), counter < 0xFF_FFFF else { throw .permissionDenied }
        files[1].sdmReadCounter = counter + 1
        let padding = sdm.metaReadKey <= 4 ? randomBytes(NTAG424SDMMirror.piccDataPaddingLength(sdm)) : []
        guard
            let image = try? NTAG424SDMMirror.image(
                file: files[1].data, sdm: sdm, uid: realUID, counter: counter + 1,
                keys: keys, padding: padding)
        else { throw .integrityError }
        sdmImage = image
        return image
    }

    // MARK: ISO 7816-4

    /// ISOSelectFile: the NDEF application by DF name or `E110`, the MF `3F00`, files `E103`,
    /// `E104`, `E105` inside the application. Selecting a DF ends the session.
    mutating func isoSelect(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return [0x6A, 0x86] }
        switch apdu.p1 {
        case 0x04:
            guard (1...16).contains(apdu.data.count) else { return [0x67, 0x00] }
            guard apdu.data == Self.applicationDFName else { return [0x6A, 0x82] }
            selectDF(application: true)
        case 0x00, 0x02:
            guard apdu.data.count == 2 else { return [0x67, 0x00] }
            let id = UInt16(apdu.data[0]) << 8 | UInt16(apdu.data[1])
            if apdu.p1 == 0x00, id == 0x3F00 {
                selectDF(application: false)
            } else if apdu.p1 == 0x00, id == 0xE110 {
                selectDF(application: true)
            } else if applicationSelected, let file = files.first(where: { $0.isoID == id }) {
                selectedFile = file.number
                sdmImage = nil
            } else {
                return [0x6A, 0x82]
            }
        default:
            return [0x6A, 0x86]
        }
        return [0x90, 0x00]
    }

    private mutating func selectDF(application: Bool) {
        applicationSelected = application
        selectedFile = nil
        session = nil
        sdmImage = nil
    }

    /// The file an ISO READ/UPDATE BINARY addresses (short file ID in P1, or the selected
    /// file) and the offset.
    private mutating func binaryTarget(_ apdu: ISO7816CommandAPDU) -> (index: Int, offset: Int)? {
        if apdu.p1 & 0x80 != 0 {
            guard applicationSelected, apdu.p1 & 0x60 == 0,
                let index = files.firstIndex(where: { $0.number == apdu.p1 & 0x1F })
            else { return nil }
            if selectedFile != files[index].number { sdmImage = nil }
            selectedFile = files[index].number
            return (index, Int(apdu.p2))
        }
        guard let selectedFile, let index = files.firstIndex(where: { $0.number == selectedFile }) else { return nil }
        return (index, Int(apdu.p1) << 8 | Int(apdu.p2))
    }

    /// ISOReadBinary (`00 B0`): free read access only; the NDEF file with SDM mirrors.
    mutating func isoReadBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard apdu.data.isEmpty, let wanted = apdu.ne else { return [0x67, 0x00] }
        guard let target = binaryTarget(apdu) else { return apdu.p1 & 0x80 != 0 ? [0x6A, 0x82] : [0x69, 0x86] }
        let (index, offset) = target
        let rights = files[index].settings.accessRights
        guard rights.read == SimulatedNTAG424AccessRights.free || rights.readWrite == SimulatedNTAG424AccessRights.free
        else { return [0x69, 0x82] }
        let size = files[index].data.count
        guard offset < size else { return [0x6B, 0x00] }
        let content: [UInt8]
        if files[index].number == 2 {
            guard let image = try? sdmRead() else { return [0x69, 0x82] }
            content = image
        } else {
            content = files[index].data
        }
        let count = min(wanted, 256, size - offset)
        return Array(content[offset..<offset + count])
            + (count < wanted && !apdu.leIsMaximum ? [0x62, 0x82] : [0x90, 0x00])
    }

    /// ISOUpdateBinary (`00 D6`): free write access only.
    mutating func isoUpdateBinary(_ apdu: ISO7816CommandAPDU) -> [UInt8] {
        guard !apdu.data.isEmpty, apdu.ne == nil else { return [0x67, 0x00] }
        guard let target = binaryTarget(apdu) else { return apdu.p1 & 0x80 != 0 ? [0x6A, 0x82] : [0x69, 0x86] }
        let (index, offset) = target
        let rights = files[index].settings.accessRights
        guard rights.write == SimulatedNTAG424AccessRights.free || rights.readWrite == SimulatedNTAG424AccessRights.free
        else { return [0x69, 0x82] }
        guard offset < files[index].data.count, apdu.data.count <= files[index].data.count - offset else {
            return [0x6B, 0x00]
        }
        files[index].data.replaceSubrange(offset..<offset + apdu.data.count, with: apdu.data)
        if files[index].number == 2 { sdmImage = nil }
        return [0x90, 0x00]
    }
}
