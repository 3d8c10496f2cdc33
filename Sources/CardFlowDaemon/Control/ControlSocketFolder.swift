import Foundation

/// The folder the control socket lives in, checked before the socket is bound: whoever can
/// write to it can replace the socket with their own and read every request (keys named,
/// jobs submitted), so it must belong to the daemon's user and be writable by nobody else.
enum ControlSocketFolder {
    /// Creates `folder` (mode 0700) when missing, else checks its owner and mode.
    ///
    /// - Throws: ``ControlSocketError/unsafeFolder(path:reason:)`` for a folder owned by another
    ///   user or writable by others; ``ControlSocketError/folderUnusable(path:reason:)`` when it
    ///   cannot be created or examined.
    static func prepare(_ folder: String) throws(ControlSocketError) {
        guard !folder.isEmpty else { return }
        var info = stat()
        if lstat(folder, &info) != 0 {
            guard errno == ENOENT else { throw .folderUnusable(path: folder, reason: String(cString: strerror(errno))) }
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw .folderUnusable(path: folder, reason: error.localizedDescription)
            }
            guard lstat(folder, &info) == 0 else {
                throw .folderUnusable(path: folder, reason: String(cString: strerror(errno)))
            }
        }
        try check(info, folder: folder)
    }

    static func check(_ info: stat, folder: String, user: uid_t = geteuid()) throws(ControlSocketError) {
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeFolder(path: folder, reason: "not a directory (a symbolic link or a file)")
        }
        guard info.st_uid == user else {
            throw .unsafeFolder(path: folder, reason: "owned by uid \(info.st_uid), not by cardd's user (uid \(user))")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o002 == 0 else {
            throw .unsafeFolder(path: folder, reason: "writable by every user (mode \(String(mode, radix: 8)))")
        }
    }
}

/// The control socket cannot be set up safely.
public enum ControlSocketError: Error, Sendable, Hashable, CustomStringConvertible {
    case unsafeFolder(path: String, reason: String)
    case folderUnusable(path: String, reason: String)

    public var description: String {
        switch self {
        case .unsafeFolder(let path, let reason):
            "refusing to put the control socket in \(path): \(reason); use a folder only cardd's user owns and can write (chmod 700), or --socket PATH"
        case .folderUnusable(let path, let reason):
            "cannot use \(path) for the control socket: \(reason)"
        }
    }
}
