#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX file work behind ``FileKeyStore``: checked reads, a directory lock for writers,
/// and atomic owner-only replacement.
enum KeyStoreFileIO {
    /// The permission bits every key store file gets.
    static let fileMode: mode_t = 0o600
    /// The permission bits of directories created for a key store.
    static let directoryMode: mode_t = 0o700
    /// The largest file read as a key store (16 slots and, say, a TON HMAC key per card for
    /// several hundred thousand cards fit well below): a hostile multi-gigabyte file is refused
    /// without being loaded.
    static let maximumFileSize = 64 << 20

    /// Splits `path` into its directory (`"."` for a bare name) and file name.
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The file's bytes, or `nil` when it does not exist.
    ///
    /// Refuses symbolic links, non-regular files and files with any group or other permission bit.
    static func readFile(at path: String) throws(KeyStoreError) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT: return nil
            case ELOOP: throw .notARegularFile(path: path)
            default: throw .readFailed(path: path, errno: code)
            }
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .readFailed(path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw .notARegularFile(path: path) }
        let mode = UInt32(info.st_mode & 0o7777)
        guard mode & 0o077 == 0 else { throw .permissionsTooOpen(path: path, mode: mode) }
        let tooLarge = KeyStoreError.corruptFile(
            path: path, reason: "larger than \(maximumFileSize) bytes, more than a key store holds")
        guard info.st_size <= maximumFileSize else { throw tooLarge }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, errno: errno)
            }
            if count == 0 { break }
            // The file may grow while it is read.
            guard bytes.count + count <= maximumFileSize else { throw tooLarge }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// Creates `directory` and missing parents with mode 0700 (existing ones are left alone).
    static func createDirectory(_ directory: String, for path: String) throws(KeyStoreError) {
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += component
            if mkdir(prefix, directoryMode) != 0, errno != EEXIST {
                throw .writeFailed(path: path, step: "create directory \(prefix)", errno: errno)
            }
            prefix += "/"
        }
    }

    /// Runs `body` while holding an exclusive `flock` on `directory`, handing it the directory's
    /// descriptor. Writers of the same key store, in this process or another, take turns. On file
    /// systems that do not support `flock`, `body` runs without the lock.
    static func withExclusiveLock<Result>(
        onDirectory directory: String,
        for path: String,
        _ body: (Int32) throws(KeyStoreError) -> Result
    ) throws(KeyStoreError) -> Result {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .writeFailed(path: path, step: "open directory", errno: errno) }
        defer { close(descriptor) }
        var locked = true
        while flock(descriptor, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            // File systems without flock (some network mounts): go on with the actor's
            // in-process serialisation only.
            guard code == ENOLCK || code == EOPNOTSUPP || code == ENOTSUP else {
                throw .writeFailed(path: path, step: "lock directory", errno: code)
            }
            locked = false
            break
        }
        defer { if locked { flock(descriptor, LOCK_UN) } }
        return try body(descriptor)
    }

    /// Replaces `path` with `bytes`: writes a temporary file with mode 0600 in the same directory,
    /// flushes it to disk, renames it over `path` and flushes the directory. On failure the
    /// temporary file is removed and `path` is unchanged.
    static func replaceFile(at path: String, with bytes: [UInt8], directory: String, directoryDescriptor: Int32)
        throws(KeyStoreError)
    {
        let name = split(path).name
        var template = Array("\(directory)/.\(name).tmp-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw .writeFailed(path: path, step: "create temporary file", errno: errno) }
        let temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var renamed = false
        defer { if !renamed { unlink(temporaryPath) } }
        do {
            defer { close(descriptor) }
            // mkstemp makes 0600 files; say so explicitly whatever the platform or umask.
            guard fchmod(descriptor, fileMode) == 0 else {
                throw KeyStoreError.writeFailed(path: path, step: "chmod", errno: errno)
            }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { buffer in
                    write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw KeyStoreError.writeFailed(path: path, step: "write", errno: errno)
                }
                written += count
            }
            guard fsync(descriptor) == 0 else {
                throw KeyStoreError.writeFailed(path: path, step: "fsync", errno: errno)
            }
        }
        guard rename(temporaryPath, path) == 0 else { throw .writeFailed(path: path, step: "rename", errno: errno) }
        renamed = true
        // The rename is done; a failing directory flush only weakens durability after a crash.
        _ = fsync(directoryDescriptor)
    }
}
