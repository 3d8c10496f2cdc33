import CardFlowHex
import Logging
import NIOCore

/// The reader side's exchanges with one card connection, run on the connection's event loop.
///
/// Each call of a ``VPCDCardConnection`` becomes one ``Exchange``: its messages are written
/// when every earlier exchange has its answer (the protocol pairs answers with commands only by
/// order), and its promise is completed by the next message from the card side. Keeping this on
/// the loop means one hop per APDU each way (caller → loop → caller), with no task or actor
/// between the socket and the caller: the network path's cost is mostly the kernel's.
///
/// An exchange that is cancelled or times out fails at once; the answer it is owed is discarded
/// when it comes, before the next exchange's command goes out. If it does not come within
/// ``VPCDTimeouts/lateAnswer`` while an exchange waits, the connection is closed.
final class VPCDExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = [UInt8]
    typealias OutboundOut = [UInt8]

    /// One call's messages and the promise of its answer (nil when the last message gets none).
    struct Exchange: Sendable {
        let operation: VPCDOperation
        let messages: [VPCDMessage]
        let timeout: Duration
        let promise: EventLoopPromise<[UInt8]?>
    }

    private struct Awaited {
        let exchange: Exchange
        let timer: Scheduled<Void>
    }

    private let timeouts: VPCDTimeouts
    private let endedPromise: EventLoopPromise<VPCDCardLossReason>
    var logger: Logger
    private var context: ChannelHandlerContext?
    /// Why the connection ended; nil while it is open.
    private(set) var ended: VPCDCardLossReason?
    private var queue = CircularBuffer<Exchange>()
    private var awaited: Awaited?
    /// Answers owed to exchanges that were cancelled or timed out.
    private var owedAnswers = 0
    private var lateAnswerTimer: Scheduled<Void>?

    init(timeouts: VPCDTimeouts, logger: Logger, eventLoop: any EventLoop) {
        self.timeouts = timeouts
        self.logger = logger
        self.endedPromise = eventLoop.makePromise()
    }

    /// Completed with the reason once, when the connection ends.
    var endedFuture: EventLoopFuture<VPCDCardLossReason> { endedPromise.futureResult }

    // MARK: - Calls (on the loop)

    func start(_ exchange: Exchange) {
        if let ended {
            exchange.promise.fail(VPCDError.cardLost(exchange.operation, reason: ended))
            return
        }
        queue.append(exchange)
        sendNext()
    }

    /// Gives up on the exchange whose answer is `future`: fails it with `error`; if its command
    /// went out, its answer is now owed.
    func abandon(_ future: EventLoopFuture<[UInt8]?>, because error: any Error) {
        if let awaited, awaited.exchange.promise.futureResult === future {
            self.awaited = nil
            awaited.timer.cancel()
            owedAnswers += 1
            logger.debug(
                "vpcd: gave up waiting for an answer",
                metadata: [
                    "operation": "\(awaited.exchange.operation)", "error": "\(error)",
                ])
            awaited.exchange.promise.fail(error)
            sendNext()
        } else if let index = queue.firstIndex(where: { $0.promise.futureResult === future }) {
            queue.remove(at: index).promise.fail(error)
        }
    }

    /// Ends the connection (once): fails every exchange with the reason and closes the socket.
    func end(_ reason: VPCDCardLossReason) {
        guard ended == nil else { return }
        ended = reason
        lateAnswerTimer?.cancel()
        lateAnswerTimer = nil
        if let awaited {
            self.awaited = nil
            awaited.timer.cancel()
            awaited.exchange.promise.fail(VPCDError.cardLost(awaited.exchange.operation, reason: reason))
        }
        while let exchange = queue.popFirst() {
            exchange.promise.fail(VPCDError.cardLost(exchange.operation, reason: reason))
        }
        endedPromise.succeed(reason)
        context?.close(promise: nil)
    }

    // MARK: - Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end(.closedLocally)
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        end(.peerClosed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? VPCDError {
            logger.warning("vpcd: card side broke the protocol; disconnecting", metadata: ["error": "\(error)"])
            end(.protocolViolation(error))
        } else {
            end(VPCDSocketFailure.lossReason(for: error))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = unwrapInboundIn(data)
        guard ended == nil else { return }
        if let awaited {
            self.awaited = nil
            awaited.timer.cancel()
            logger.trace("<<< vpcd \(awaited.exchange.operation) answer \(HexFormat.string(payload))")
            awaited.exchange.promise.succeed(payload)
            sendNext()
        } else if owedAnswers > 0 {
            // The answer of a cancelled or timed-out exchange.
            owedAnswers -= 1
            logger.debug("vpcd: discarded a late answer", metadata: ["length": "\(payload.count)"])
            lateAnswerTimer?.cancel()
            lateAnswerTimer = nil
            sendNext()
        } else {
            logger.warning(
                "vpcd: card side sent a message no command asked for; disconnecting",
                metadata: ["length": "\(payload.count)"])
            end(.protocolViolation(.unsolicitedMessage(length: payload.count)))
        }
    }

    // MARK: - Sending

    /// Sends queued exchanges until one awaits an answer, unless owed answers must come first.
    private func sendNext() {
        guard ended == nil, let context else { return }
        while awaited == nil, !queue.isEmpty {
            if owedAnswers > 0 {
                waitForLateAnswers(context.eventLoop)
                return
            }
            send(queue.removeFirst(), context: context)
        }
    }

    private func send(_ exchange: Exchange, context: ChannelHandlerContext) {
        for message in exchange.messages {
            if case .command(let apdu) = message {
                logger.trace(">>> vpcd transmit \(HexFormat.string(apdu))")
            } else {
                logger.trace(">>> vpcd control \(HexFormat.string(message.payload)) (\(exchange.operation))")
            }
            // A failed write closes the channel, which ends the connection with a reason.
            context.write(wrapOutboundOut(message.payload), promise: nil)
        }
        context.flush()
        guard exchange.messages.last?.expectsAnswer == true else {
            exchange.promise.succeed(nil)
            return
        }
        let future = exchange.promise.futureResult
        let timeout = exchange.timeout
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let timer = context.eventLoop.scheduleTask(in: TimeAmount(timeout)) {
            handler.value.abandon(future, because: VPCDError.timedOut(exchange.operation, after: timeout))
        }
        awaited = Awaited(exchange: exchange, timer: timer)
    }

    private func waitForLateAnswers(_ eventLoop: any EventLoop) {
        guard lateAnswerTimer == nil else { return }
        let lateAnswer = timeouts.lateAnswer
        let handler = NIOLoopBound(self, eventLoop: eventLoop)
        lateAnswerTimer = eventLoop.scheduleTask(in: TimeAmount(lateAnswer)) {
            let handler = handler.value
            handler.lateAnswerTimer = nil
            handler.logger.warning(
                "vpcd: the answer owed to an abandoned command did not come; disconnecting",
                metadata: ["waited": "\(lateAnswer)"])
            handler.end(.lateAnswerMissing)
        }
    }
}
