import CardFlowPCSCLite
import Testing

/// Leaves nothing of a test inside libpcsclite when the test ends.
///
/// libpcsclite's destructors run when the test process exits; a thread still inside it then (a
/// context released by a deinit on its PC/SC thread, an `SCardCancel` sent by a cancelled
/// watch) dereferences freed state and the process dies with signal 11 after every test passed
/// (CI, pcsc-backend-check phase 2, 2026-11-30). So the suites open contexts with
/// ``PCSCTestEnvironment/context()`` and watches with ``PCSCTestEnvironment/watching(_:_:)``,
/// and this trait releases the contexts, awaited, when each test ends, failed or not.
struct PCSCContextsReleased: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let opened = PCSCOpenedContexts()
        do {
            try await PCSCTestEnvironment.$opened.withValue(opened) { try await function() }
        } catch {
            await opened.releaseAll()
            throw error
        }
        await opened.releaseAll()
    }
}

extension Trait where Self == PCSCContextsReleased {
    /// Releases the PC/SC contexts each test opened when it ends (see ``PCSCContextsReleased``).
    static var pcscContextsReleased: Self { PCSCContextsReleased() }
}

/// The contexts one test opened.
actor PCSCOpenedContexts {
    private var contexts: [PCSCContext] = []

    func add(_ context: PCSCContext) { contexts.append(context) }

    func releaseAll() async {
        for context in contexts { try? await context.release() }
        contexts.removeAll()
    }
}

extension PCSCTestEnvironment {
    @TaskLocal static var opened: PCSCOpenedContexts?

    /// A new context, released when the test ends (the suite needs ``PCSCContextsReleased``).
    static func context() async throws -> PCSCContext {
        let context = try await PCSCContext(logger: logger)
        guard let opened else {
            Issue.record("PCSCTestEnvironment.context() outside a suite with .pcscContextsReleased")
            return context
        }
        await opened.add(context)
        return context
    }

    /// `body`'s result with `watch`'s updates; the watch is stopped, and awaited, afterwards,
    /// also when `body` throws or is cancelled.
    static func watching<Element: Sendable, Result>(
        _ watch: PCSCWatch<Element>,
        _ body: (inout AsyncThrowingStream<Element, any Error>.AsyncIterator) async throws -> Result
    ) async throws -> Result {
        var updates = watch.updates.makeAsyncIterator()
        do {
            let result = try await body(&updates)
            await watch.stop()
            return result
        } catch {
            await watch.stop()
            throw error
        }
    }
}
