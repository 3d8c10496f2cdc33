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
}
