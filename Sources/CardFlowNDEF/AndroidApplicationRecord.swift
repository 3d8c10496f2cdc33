/// An Android Application Record (AAR): the external type `android.com:pkg` whose payload is
/// an application package name. Android opens (or offers to install) that application.
///
/// ```swift
/// let aar = AndroidApplicationRecord(packageName: "com.example.app")
/// let message = NDEFMessage([URIRecord("https://example.com").record, aar.record])
/// ```
public struct AndroidApplicationRecord: NDEFRecordView {
    /// The external type name, `android.com:pkg`.
    public static let typeName = "android.com:pkg"

    /// The package name, such as `com.example.app`.
    public var packageName: String

    public init(packageName: String) {
        self.packageName = packageName
    }

    public init(_ record: NDEFRecord, mode: NDEFDecodingMode) throws(NDEFDecodingError) {
        // External type names compare case-insensitively (NFC Forum RTD).
        guard record.tnf == .external, record.typeString.lowercased() == Self.typeName else {
            throw NDEFDecodingError(
                offset: 0, record: nil, problem: .wrongRecordType(expected: "Android Application (android.com:pkg)"))
        }
        if let name = String(validating: record.payload, as: UTF8.self) {
            packageName = name
        } else if mode == .lenient {
            packageName = String(decoding: record.payload, as: UTF8.self)
        } else {
            throw NDEFDecodingError(offset: 0, record: nil, problem: .invalidText(encoding: "UTF-8"))
        }
    }

    public var record: NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(Self.typeName.utf8), payload: Array(packageName.utf8))
    }
}
