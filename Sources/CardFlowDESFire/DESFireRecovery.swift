import CardFlow

extension DESFireClient {
    /// Registers with `session` (under the key `"desfire"`) a restoration that, after the card was
    /// power-cycled or came back, re-selects the application selected last and re-authenticates
    /// with the key used last.
    ///
    /// The replay is best-effort on the card's side: if the card refuses (for example the key was
    /// changed just before the card left), the client stays unauthenticated and the next command
    /// tells; losing the card again is reported as usual.
    ///
    /// ```swift
    /// let client = DESFireClient(channel: session)
    /// await client.enableRecovery(on: session)
    /// ```
    public func enableRecovery(on session: CardSession) async {
        // Weak: the session must not keep its client (and so itself) alive after it closes.
        await session.onReconnect(key: "desfire") { [weak self] _ in
            try await self?.restoreAfterReconnect()
        }
    }

    /// Re-selects the last application and re-authenticates with the last key (see ``enableRecovery(on:)``).
    public func restoreAfterReconnect() async throws {
        let aid = selectedApplication
        let authentication = lastAuthentication
        resetState()
        do {
            try await selectApplication(aid)
            if let authentication {
                try await authenticate(
                    keyNumber: authentication.keyNumber, key: authentication.key, method: authentication.method)
            }
        } catch is DESFireError {
            // The card refused: leave the client unauthenticated; the step decides what to do.
        }
    }
}

/// Card identity for DESFire cards: the anti-collision UID, or, when the card uses random UIDs
/// (4-byte UID starting with 0x08), the real UID from GetCardUID after authenticating.
///
/// ```swift
/// var policy = SessionPolicy()
/// policy.identity = DESFireIdentity.resolver(application: .picc, keyNumber: 0, key: .defaultDES)
/// ```
public enum DESFireIdentity {
    /// Whether an anti-collision UID is a random one (ISO 14443-3: 4 bytes starting with 0x08).
    public static func isRandomUID(_ uid: [UInt8]) -> Bool {
        uid.count == 4 && uid.first == 0x08
    }

    /// A resolver that uses the reader's UID unless it is random, else GetCardUID with `key`.
    public static func resolver(
        application: DESFireApplicationID = .picc, keyNumber: UInt8 = 0,
        key: DESFireKey
    ) -> CardIdentityResolver {
        CardIdentityResolver { session in
            let identity = await session.identity
            if let uid = identity.uid, !isRandomUID(uid) { return uid }
            // A separate client: the flow's client keeps its own state.
            let client = DESFireClient(channel: session)
            try await client.selectApplication(application)
            try await client.authenticate(keyNumber: keyNumber, key: key)
            return try await client.getCardUID()
        }
    }
}
