/// A dedicated file (DF) of an ``ISO7816Card``: the master file or an application.
public struct ISO7816DedicatedFile: Sendable, Hashable, Codable {
    /// The 2-byte file identifier (`3F00` for the master file), if the DF has one.
    public var fileID: UInt16?
    /// The DF name (application identifier, 1…16 bytes) used by SELECT by name, if any.
    public var name: [UInt8]?
    /// The transparent EFs directly under this DF.
    public var elementaryFiles: [ISO7816ElementaryFile]
    /// The DFs directly under this DF.
    public var dedicatedFiles: [ISO7816DedicatedFile]

    /// Creates a DF.
    ///
    /// - Parameters:
    ///   - fileID: file identifier, or `nil`.
    ///   - name: DF name / AID, or `nil`.
    ///   - elementaryFiles: child EFs.
    ///   - dedicatedFiles: child DFs.
    public init(
        fileID: UInt16? = nil, name: [UInt8]? = nil,
        elementaryFiles: [ISO7816ElementaryFile] = [], dedicatedFiles: [ISO7816DedicatedFile] = []
    ) {
        self.fileID = fileID
        self.name = name
        self.elementaryFiles = elementaryFiles
        self.dedicatedFiles = dedicatedFiles
    }
}
