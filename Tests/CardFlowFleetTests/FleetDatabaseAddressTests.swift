import CardFlowFleet
import Testing

@Suite struct FleetDatabaseAddressTests {
    @Test func tcpURL() throws {
        let address = try FleetDatabaseAddress(
            "postgresql://cardd:s%40cret@db.example:6543/fleet?sslmode=require", environment: [:])
        #expect(address.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(address.user == "cardd")
        #expect(address.password == "s@cret")
        #expect(address.database == "fleet")
        #expect(address.tls == .require)
        #expect(!address.description.contains("cret"))
    }

    @Test func socketFolderInTheQuery() throws {
        let address = try FleetDatabaseAddress(
            "postgresql:///cardflow?host=/run/postgresql&user=cardd", environment: ["PGPASSWORD": "pw"])
        #expect(address.endpoint == .unixSocket(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(address.user == "cardd")
        #expect(address.password == "pw")
        #expect(address.database == "cardflow")
    }

    @Test func barePathUsesTheEnvironment() throws {
        let address = try FleetDatabaseAddress(
            "/tmp/pg/.s.PGSQL.5433", environment: ["PGUSER": "ops", "PGDATABASE": "badges"])
        #expect(address.endpoint == .unixSocket(path: "/tmp/pg/.s.PGSQL.5433"))
        #expect(address.user == "ops")
        #expect(address.database == "badges")
    }

    @Test(arguments: [
        "mysql://x/y", "db.example:5432", "postgresql:///cardflow", "postgresql://h:99999/d",
        "postgresql://h/d?sslmode=sometimes",
    ])
    func badAddressesAreTyped(text: String) {
        #expect {
            try FleetDatabaseAddress(text, environment: [:])
        } throws: { error in
            if case .invalidAddress = error as? FleetStoreError { return true }
            return false
        }
    }

    @Test func severalTCPHostsEachWithItsPort() throws {
        let address = try FleetDatabaseAddress(
            "postgresql://cardd@db1.example:5432,db2.example:6543,[fd00::2]/fleet?sslmode=require", environment: [:])
        #expect(
            address.endpoints == [
                .tcp(host: "db1.example", port: 5432), .tcp(host: "db2.example", port: 6543),
                .tcp(host: "fd00::2", port: 5432),
            ])
        #expect(address.endpoint == .tcp(host: "db1.example", port: 5432))
        #expect(address.user == "cardd")
        #expect(address.database == "fleet")
        #expect(address.tls == .require)
        #expect(address.description == "postgresql://cardd@db1.example:5432,db2.example:6543,[fd00::2]:5432/fleet")
    }

    @Test func severalSocketFoldersWithOnePortEach() throws {
        let address = try FleetDatabaseAddress(
            "postgresql:///cardflow?host=/tmp/a,/tmp/b&port=5432,5433&user=postgres&target_session_attrs=read-write",
            environment: [:])
        #expect(
            address.endpoints == [
                .unixSocket(path: "/tmp/a/.s.PGSQL.5432"), .unixSocket(path: "/tmp/b/.s.PGSQL.5433"),
            ])
        #expect(address.tls == .disable)
        let bare = try FleetDatabaseAddress("/run/pg-a,/run/pg-b", environment: [:])
        #expect(
            bare.endpoints == [
                .unixSocket(path: "/run/pg-a/.s.PGSQL.5432"), .unixSocket(path: "/run/pg-b/.s.PGSQL.5432"),
            ])
    }

    @Test(arguments: [
        "postgresql://a,,b/d", "postgresql://a,b/d?port=1,2,3", "postgresql://a:0,b/d", "postgresql://[fd00::1/d",
        "postgresql://fd00::1/d", "postgresql:///d?host=/a,", "/run/a,relative",
        "postgresql://h/d?target_session_attrs=read-only",
        "postgresql://" + (1...17).map { "h\($0)" }.joined(separator: ",") + "/d",
    ])
    func badServerListsAreTyped(text: String) {
        #expect {
            try FleetDatabaseAddress(text, environment: [:])
        } throws: { error in
            if case .invalidAddress = error as? FleetStoreError { return true }
            return false
        }
    }
}
