import Foundation

/// Where the fleet's PostgreSQL server is, as the `fleet.postgres` setting and `cardctl fleet
/// --postgres` give it.
///
/// Three forms:
/// - a URL: `postgresql://user:password@host:5432/database?sslmode=require`;
/// - a URL naming a Unix-socket folder: `postgresql:///cardflow?host=/run/postgresql&user=cardd`;
/// - a bare absolute path: the socket folder (or the socket file itself), with the user from
///   `PGUSER` (else `postgres`) and the database from `PGDATABASE` (else `cardflow`).
///
/// A password may also come from `PGPASSWORD`, so that it stays out of configuration files.
public struct FleetDatabaseAddress: Sendable, Hashable, CustomStringConvertible {
    /// How the server is reached.
    public enum Endpoint: Sendable, Hashable {
        /// TCP, with TLS as ``FleetDatabaseAddress/tls`` says.
        case tcp(host: String, port: Int)
        /// The socket file (`…/.s.PGSQL.5432`).
        case unixSocket(path: String)
    }

    /// TLS on a TCP connection (libpq's `sslmode`: `disable`, `prefer`, `require`).
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var endpoint: Endpoint
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    public init(endpoint: Endpoint, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer) {
        self.endpoint = endpoint
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses `text` (see the type's description); `environment` supplies `PGUSER`,
    /// `PGDATABASE` and `PGPASSWORD`.
    public init(
        _ text: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(FleetStoreError) {
        let defaultUser = environment["PGUSER"] ?? "postgres"
        let defaultDatabase = environment["PGDATABASE"] ?? "cardflow"
        if text.hasPrefix("/") {
            self.init(
                endpoint: .unixSocket(path: Self.socketFile(text, port: 5432)), user: defaultUser,
                password: environment["PGPASSWORD"], database: defaultDatabase)
            return
        }
        guard let components = URLComponents(string: text),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw .invalidAddress(
                "'\(text.prefix(80))' is neither a postgresql:// URL nor an absolute socket path")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let port = components.port ?? Int(query["port"] ?? "") ?? 5432
        guard (1...65_535).contains(port) else { throw .invalidAddress("port \(port) is outside 1...65535") }
        let user = components.user.flatMap { $0.removingPercentEncoding } ?? query["user"] ?? defaultUser
        let password =
            components.password.flatMap { $0.removingPercentEncoding } ?? query["password"]
            ?? environment["PGPASSWORD"]
        var database = String(components.path.drop { $0 == "/" })
        if database.isEmpty { database = query["dbname"] ?? defaultDatabase }
        var tls = TLSMode.prefer
        if let mode = query["sslmode"] {
            switch mode {
            case "disable": tls = .disable
            case "allow", "prefer": tls = .prefer
            case "require", "verify-ca", "verify-full": tls = .require
            default: throw .invalidAddress("sslmode '\(mode)' is not disable, prefer or require")
            }
        }
        let host = components.host.flatMap { $0.removingPercentEncoding } ?? ""
        let socketFolder = query["host"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? (host.hasPrefix("/") ? host : nil)
        if let socketFolder {
            self.init(
                endpoint: .unixSocket(path: Self.socketFile(socketFolder, port: port)), user: user,
                password: password, database: database, tls: .disable)
        } else {
            guard !host.isEmpty else {
                throw .invalidAddress("the URL names no host; for a Unix socket add ?host=/socket/folder")
            }
            self.init(
                endpoint: .tcp(host: host, port: port), user: user, password: password, database: database, tls: tls)
        }
    }

    /// PostgreSQL's socket is `.s.PGSQL.<port>` in its folder.
    private static func socketFile(_ path: String, port: Int) -> String {
        if (path as NSString).lastPathComponent.hasPrefix(".s.PGSQL.") { return path }
        return (path as NSString).appendingPathComponent(".s.PGSQL.\(port)")
    }

    /// The address without its password, for logs and status output.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port): "postgresql://\(user)@\(host):\(port)/\(database)"
        case .unixSocket(let path): "postgresql://\(user)@[\(path)]/\(database)"
        }
    }
}
