import CardFlowPostgresTestSupport
import Testing

enum FleetTestEnvironment {
    static var hasPostgres: Bool { ThrowawayPostgres.enabled }
    static let skipReason: Comment = "PostgreSQL is not installed (Scripts/setup.sh installs it); CI runs these tests"
}
