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
/// Several servers, as libpq writes them, for a primary with standbys: hosts separated by commas
/// (`postgresql://cardd@db1:5432,db2:5432/fleet`, `?host=/run/pg-a,/run/pg-b`, `/run/pg-a,/run/pg-b`),
/// with one port for all or one per host (`?port=5432,5433`). The store writes to whichever of them
/// answers as the primary and follows a standby that is promoted (``endpoints``).
///
/// A password may also come from `PGPASSWORD`, so that it stays out of configuration files.
public struct FleetDatabaseAddress: Sendable, Hashable, CustomStringConvertible {
    /// How the server is reached.
    public enum Endpoint: Sendable, Hashable, CustomStringConvertible {
        /// TCP, with TLS as ``FleetDatabaseAddress/tls`` says.
        case tcp(host: String, port: Int)
        /// The socket file (`…/.s.PGSQL.5432`).
        case unixSocket(path: String)

        public var description: String {
            switch self {
            case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
            case .unixSocket(let path): "[\(path)]"
            }
        }
    }

    /// TLS on a TCP connection (libpq's `sslmode`: `disable`, `prefer`, `require`).
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    /// The servers, in the order the address lists them: one, or a primary and its standbys.
    /// Never empty.
    public private(set) var endpoints: [Endpoint]
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// The first server of ``endpoints`` (the only one of a single-server address).
    public var endpoint: Endpoint {
        get { endpoints[0] }
        set { endpoints[0] = newValue }
    }

    /// The most servers one address may list.
    public static let maximumEndpoints = 16

    public init(endpoint: Endpoint, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer) {
        self.endpoints = [endpoint]
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// An address of several servers (a primary and its standbys, in any order).
    public init(
        endpoints: [Endpoint], user: String, password: String? = nil, database: String, tls: TLSMode = .prefer
    ) throws(FleetStoreError) {
        guard !endpoints.isEmpty, endpoints.count <= Self.maximumEndpoints else {
            throw .invalidAddress("1 to \(Self.maximumEndpoints) servers, not \(endpoints.count)")
        }
        self.endpoints = endpoints
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
            let paths = try Self.list(text, what: "socket path")
            guard paths.allSatisfy({ $0.hasPrefix("/") }) else {
                throw .invalidAddress("every socket path of '\(text.prefix(80))' must be absolute")
            }
            try self.init(
                endpoints: paths.map { .unixSocket(path: Self.socketFile($0, port: 5432)) }, user: defaultUser,
                password: environment["PGPASSWORD"], database: defaultDatabase, tls: .prefer)
            return
        }
        // URLComponents takes one host: the authority's host list is split off by hand first.
        let (firstHostText, hostList) = try Self.splitHostList(text)
        guard let components = URLComponents(string: firstHostText),
            let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme)
        else {
            throw .invalidAddress(
                "'\(text.prefix(80))' is neither a postgresql:// URL nor an absolute socket path")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var queryPorts: [Int] = []
        if let text = query["port"] {
            for entry in try Self.list(text, what: "port") { queryPorts.append(try Self.port(entry)) }
        }
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
        if let mode = query["target_session_attrs"], !["read-write", "primary", "any"].contains(mode) {
            // The fleet writes: it always looks for the primary, whatever libpq would be told.
            throw .invalidAddress("target_session_attrs '\(mode)': the fleet needs the primary (read-write)")
        }
        // libpq's `host` parameter wins over the authority's hosts; both may mix socket folders
        // and TCP hosts.
        var hostEntries = hostList
        if let text = query["host"] { hostEntries = try Self.list(text, what: "host") }
        guard !hostEntries.isEmpty else {
            throw .invalidAddress("the URL names no host; for a Unix socket add ?host=/socket/folder")
        }
        let defaults = try Self.ports(queryPorts, count: hostEntries.count)
        var endpoints: [Endpoint] = []
        for (entry, defaultPort) in zip(hostEntries, defaults) {
            if entry.hasPrefix("/") {
                endpoints.append(.unixSocket(path: Self.socketFile(entry, port: defaultPort)))
            } else {
                let (host, port) = try Self.hostAndPort(entry, defaultPort: defaultPort)
                endpoints.append(.tcp(host: host, port: port))
            }
        }
        let allSockets = endpoints.allSatisfy { if case .unixSocket = $0 { true } else { false } }
        try self.init(
            endpoints: endpoints, user: user, password: password, database: database,
            tls: allSockets ? .disable : tls)
    }

    /// `text` with its authority's host list reduced to the first host (for URLComponents), and
    /// the list itself (percent-decoded `host[:port]` entries; empty when the URL names none).
    private static func splitHostList(_ text: String) throws(FleetStoreError) -> (String, [String]) {
        guard let schemeEnd = text.range(of: "://") else { return (text, []) }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let at = authority.lastIndex(of: "@")
        let userInfo = at.map { authority[...$0] } ?? ""
        let hosts = at.map { authority[authority.index(after: $0)...] } ?? authority
        guard !hosts.isEmpty else { return (text, []) }
        let entries = try list(String(hosts), what: "host")
        let first = String(text[..<schemeEnd.upperBound]) + userInfo + entries[0] + rest[authorityEnd...]
        return (first, entries.map { $0.removingPercentEncoding ?? $0 })
    }

    /// A comma-separated list with no empty entry and at most ``maximumEndpoints`` of them.
    private static func list(_ text: String, what: String) throws(FleetStoreError) -> [String] {
        let entries = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard entries.count <= maximumEndpoints else {
            throw .invalidAddress("more than \(maximumEndpoints) entries in the \(what) list")
        }
        guard entries.allSatisfy({ !$0.isEmpty }) else { throw .invalidAddress("an empty entry in the \(what) list") }
        return entries
    }

    private static func port(_ text: String) throws(FleetStoreError) -> Int {
        guard let port = Int(text), (1...65_535).contains(port) else {
            throw .invalidAddress("port \(text.prefix(20)) is outside 1...65535")
        }
        return port
    }

    /// libpq's rule: no port (5432 for all), one port for every host, or one per host.
    private static func ports(_ ports: [Int], count: Int) throws(FleetStoreError) -> [Int] {
        switch ports.count {
        case 0: return Array(repeating: 5432, count: count)
        case 1: return Array(repeating: ports[0], count: count)
        case count: return ports
        default: throw .invalidAddress("\(ports.count) ports for \(count) hosts")
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`.
    private static func hostAndPort(_ entry: String, defaultPort: Int) throws(FleetStoreError) -> (String, Int) {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { throw .invalidAddress("'\(entry.prefix(60))': no ']'") }
            let host = String(entry[entry.index(after: entry.startIndex)..<close])
            let tail = entry[entry.index(after: close)...]
            guard !tail.isEmpty else { return (host, defaultPort) }
            guard tail.hasPrefix(":") else { throw .invalidAddress("'\(entry.prefix(60))': text after ']'") }
            return (host, try port(String(tail.dropFirst())))
        }
        let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
        switch parts.count {
        case 1: return (entry, defaultPort)
        case 2:
            guard !parts[0].isEmpty else { throw .invalidAddress("'\(entry.prefix(60))' names no host") }
            return (String(parts[0]), try port(String(parts[1])))
        default: throw .invalidAddress("'\(entry.prefix(60))': an IPv6 host goes in brackets")
        }
    }

    /// PostgreSQL's socket is `.s.PGSQL.<port>` in its folder.
    private static func socketFile(_ path: String, port: Int) -> String {
        if (path as NSString).lastPathComponent.hasPrefix(".s.PGSQL.") { return path }
        return (path as NSString).appendingPathComponent(".s.PGSQL.\(port)")
    }

    /// The address without its password, for logs and status output.
    public var description: String {
        "postgresql://\(user)@\(endpoints.map(\.description).joined(separator: ","))/\(database)"
    }
}
