import NIOCore

/// Runs the jobs of tasks that prefer it on one SwiftNIO event loop.
///
/// Why: the card side answers each message by calling an async ``VPCDCard``. A task on the
/// channel's own loop (default actors such as the card run there too, SE-0417) reads, answers
/// and writes without waking another thread; on the global pool each message costs two thread
/// hand-overs more.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
