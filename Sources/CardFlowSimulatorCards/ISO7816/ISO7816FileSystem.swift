/// The file tree of an ``ISO7816Card``: a master file (`3F00`) with DFs and transparent EFs.
///
/// This is the persistent part of the card; the current selection lives in the card.
public struct ISO7816FileSystem: Sendable, Hashable, Codable {
    /// The file identifier of the master file.
    public static let masterFileID: UInt16 = 0x3F00

    /// The master file (its ``ISO7816DedicatedFile/fileID`` is always `3F00`).
    public private(set) var masterFile: ISO7816DedicatedFile

    /// Creates a file system; the master file's identifier is set to `3F00`.
    public init(masterFile: ISO7816DedicatedFile) {
        var masterFile = masterFile
        masterFile.fileID = Self.masterFileID
        self.masterFile = masterFile
    }

    /// Decodes a file system, rejecting a master file whose identifier is not `3F00`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let masterFile = try container.decode(ISO7816DedicatedFile.self)
        guard masterFile.fileID == Self.masterFileID else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "master file must be 3F00")
        }
        self.masterFile = masterFile
    }

    /// Encodes the file system as its master file.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(masterFile)
    }

    /// The DF reached from the master file through the DF identifiers in `path`
    /// (a leading `3F00` is allowed; an empty path is the master file).
    public func dedicatedFile(atPath path: [UInt16]) -> ISO7816DedicatedFile? {
        indexPath(ofDedicatedFileAt: path).flatMap { dedicatedFile(at: $0) }
    }

    /// The EF at `path`: DF identifiers from the master file (a leading `3F00` is allowed),
    /// then the EF identifier.
    public func elementaryFile(atPath path: [UInt16]) -> ISO7816ElementaryFile? {
        guard let efID = path.last,
            let df = dedicatedFile(atPath: Array(path.dropLast()))
        else { return nil }
        return df.elementaryFiles.first { $0.fileID == efID }
    }

    /// The first DF (depth first) whose name is exactly `name`.
    public func application(named name: [UInt8]) -> ISO7816DedicatedFile? {
        namedDedicatedFilePaths().lazy.compactMap { dedicatedFile(at: $0) }.first { $0.name == name }
    }

    // MARK: - Internal navigation by child index paths

    /// The DF at an index path (indices into ``ISO7816DedicatedFile/dedicatedFiles`` from the MF).
    func dedicatedFile(at indexPath: [Int]) -> ISO7816DedicatedFile? {
        var df = masterFile
        for index in indexPath {
            guard df.dedicatedFiles.indices.contains(index) else { return nil }
            df = df.dedicatedFiles[index]
        }
        return df
    }

    /// Index path of the DF reached through DF identifiers from the MF (leading `3F00` allowed).
    func indexPath(ofDedicatedFileAt path: [UInt16]) -> [Int]? {
        var fids = path[...]
        if fids.first == Self.masterFileID { fids = fids.dropFirst() }
        var indexPath: [Int] = []
        var df = masterFile
        for fid in fids {
            guard let index = df.dedicatedFiles.firstIndex(where: { $0.fileID == fid }) else { return nil }
            indexPath.append(index)
            df = df.dedicatedFiles[index]
        }
        return indexPath
    }

    /// Index paths of every DF that has a name, depth first in definition order (MF first).
    func namedDedicatedFilePaths() -> [[Int]] {
        var result: [[Int]] = []
        func visit(_ df: ISO7816DedicatedFile, _ path: [Int]) {
            if df.name != nil { result.append(path) }
            for (index, child) in df.dedicatedFiles.enumerated() { visit(child, path + [index]) }
        }
        visit(masterFile, [])
        return result
    }

    /// Replaces the content of EF number `index` of the DF at `indexPath`.
    mutating func setContent(_ content: [UInt8], ofElementaryFile index: Int, inDedicatedFileAt indexPath: [Int]) {
        func update(_ df: inout ISO7816DedicatedFile, _ path: ArraySlice<Int>) {
            if let first = path.first {
                guard df.dedicatedFiles.indices.contains(first) else { return }
                update(&df.dedicatedFiles[first], path.dropFirst())
            } else if df.elementaryFiles.indices.contains(index) {
                df.elementaryFiles[index].content = content
            }
        }
        update(&masterFile, indexPath[...])
    }
}
