import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``KeyStore`` kept in one JSON file that only its owner may read.
///
/// ```swift
/// let store = try FileKeyStore()                         // default location, see defaultPath(environment:)
/// let custom = FileKeyStore(path: "/etc/cardflow/keys.json")
/// try await store.setKey(StoredKey(algorithm: .twoKey3DES, bytes: keyBytes, version: 0), in: KeySlot(1))
/// ```
///
/// Guarantees:
/// - **Owner only.** The file is created with mode 0600 and every write leaves it at 0600
///   (missing directories are created with mode 0700). A file with *any* group or other
///   permission bit (readable, writable or executable by them) is refused for reading and
///   writing with ``KeyStoreError/permissionsTooOpen(path:mode:)``, whose message says to
///   `chmod 600` it: a key file others could read may already be leaked, one they could write
///   may hold planted keys.
/// - **Atomic writes.** A change writes a temporary file in the same directory, `fsync`s it,
///   renames it over the old file and `fsync`s the directory. Readers see the old or the new
///   file, never a mix; a failed write leaves the old file and no temporary file.
/// - **Never overwrites what it cannot read.** A file that is not valid key store JSON, a
///   symbolic link, or not a regular file, makes every operation throw
///   (``KeyStoreError/corruptFile(path:reason:)``, ``KeyStoreError/notARegularFile(path:)``…);
///   `set` and `delete` then leave it byte for byte as it was.
/// - **Concurrency.** The store is an actor, so calls from many tasks are serialised. Each
///   change is a read-modify-write under an exclusive `flock` on the file's directory, so other
///   `FileKeyStore` instances and other processes using the same file do not lose updates.
///
/// Every call reads the file afresh (nothing is cached), so changes by other processes show up at
/// once. A file that does not exist is an empty store; reading never creates it.
public actor FileKeyStore: KeyStore {
    /// Where the key store file is.
    public nonisolated let path: String

    /// A store kept at `path` (created on the first change).
    public init(path: String) {
        self.path = path
    }

    private let io = DispatchQueue(label: "cardflow.keystore.io")

    /// A store at the default location, ``defaultPath(environment:)``.
    ///
    /// - Throws: ``KeyStoreError/noDefaultLocation`` when the environment names no location.
    public init() throws(KeyStoreError) {
        self.init(path: try Self.defaultPath())
    }

    /// The default key store file: `$XDG_CONFIG_HOME/cardflow/keys.json`, or
    /// `$HOME/.config/cardflow/keys.json` when `XDG_CONFIG_HOME` is unset, empty or relative (as
    /// the XDG Base Directory specification says to ignore relative values).
    ///
    /// - Parameter environment: the variables to look at; `nil` reads the process environment.
    /// - Throws: ``KeyStoreError/noDefaultLocation`` when neither variable gives an absolute path.
    public static func defaultPath(environment: [String: String]? = nil) throws(KeyStoreError) -> String {
        func variable(_ name: String) -> String? {
            if let environment { return environment[name] }
            return getenv(name).map { String(cString: $0) }
        }
        if let configuration = variable("XDG_CONFIG_HOME"), configuration.hasPrefix("/") {
            return join(configuration, "cardflow/keys.json")
        }
        if let home = variable("HOME"), home.hasPrefix("/") {
            return join(home, ".config/cardflow/keys.json")
        }
        throw .noDefaultLocation
    }

    private static func join(_ directory: String, _ relative: String) -> String {
        directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    public func key(in slot: KeySlot) async throws(KeyStoreError) -> StoredKey? {
        let path = self.path
        return try await onIOQueue { () throws(KeyStoreError) -> StoredKey? in try Self.load(path).keys[slot] }
    }

    public func setKey(_ key: StoredKey, in slot: KeySlot) async throws(KeyStoreError) {
        try await change { contents throws(KeyStoreError) in contents.keys[slot] = key }
    }

    public func deleteKey(in slot: KeySlot) async throws(KeyStoreError) {
        try await change { contents throws(KeyStoreError) in try contents.removeKey(in: slot) }
    }

    public func secret(named name: String) async throws(KeyStoreError) -> SecretBytes? {
        try SecretNameRule.validate(name)
        let path = self.path
        return try await onIOQueue { () throws(KeyStoreError) -> SecretBytes? in try Self.load(path).secrets[name] }
    }

    public func setSecret(_ secret: SecretBytes, named name: String) async throws(KeyStoreError) {
        try SecretNameRule.validate(name)
        try await change { contents throws(KeyStoreError) in contents.secrets[name] = secret }
    }

    public func deleteSecret(named name: String) async throws(KeyStoreError) {
        try SecretNameRule.validate(name)
        try await change { contents throws(KeyStoreError) in try contents.removeSecret(named: name) }
    }

    public func listing() async throws(KeyStoreError) -> KeyStoreListing {
        let path = self.path
        return try await onIOQueue { () throws(KeyStoreError) -> KeyStoreListing in try Self.load(path).listing }
    }

    /// Runs blocking file work (reads, fsync, flock) on the store's own serial queue, so it
    /// never occupies one of the few Swift concurrency threads.
    private func onIOQueue<T: Sendable>(_ work: @escaping @Sendable () throws(KeyStoreError) -> T)
        async throws(KeyStoreError) -> T
    {
        let io = self.io
        let result: Result<T, KeyStoreError> = await withCheckedContinuation { continuation in
            io.async { continuation.resume(returning: Result { () throws(KeyStoreError) -> T in try work() }) }
        }
        return try result.get()
    }

    private func change(_ modify: @escaping @Sendable (inout KeyStoreContents) throws(KeyStoreError) -> Void)
        async throws(KeyStoreError)
    {
        let path = self.path
        try await onIOQueue { () throws(KeyStoreError) in try Self.change(path, modify) }
    }

    /// The file's contents; empty when there is no file.
    private static func load(_ path: String) throws(KeyStoreError) -> KeyStoreContents {
        guard let bytes = try KeyStoreFileIO.readFile(at: path) else { return KeyStoreContents() }
        return try KeyStoreFileFormat.decode(bytes, path: path)
    }

    /// Reads, changes and atomically rewrites the file while holding the directory lock. Nothing
    /// is written when reading or `modify` fails.
    private static func change(_ path: String, _ modify: (inout KeyStoreContents) throws(KeyStoreError) -> Void)
        throws(KeyStoreError)
    {
        let directory = KeyStoreFileIO.split(path).directory
        if access(directory, F_OK) != 0 {
            // No directory, so no file: a change that fails on an empty store (deleting what is
            // not there) should fail before anything is created.
            var empty = KeyStoreContents()
            try modify(&empty)
            try KeyStoreFileIO.createDirectory(directory, for: path)
        }
        try KeyStoreFileIO.withExclusiveLock(onDirectory: directory, for: path) { descriptor throws(KeyStoreError) in
            var contents = try load(path)
            try modify(&contents)
            try KeyStoreFileIO.replaceFile(
                at: path, with: KeyStoreFileFormat.encode(contents),
                directory: directory, directoryDescriptor: descriptor)
        }
    }
}
