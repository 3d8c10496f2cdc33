/// `{"blocksWritten":N}`: what `classic write` and `felica write` print with `--json`.
struct BlocksWrittenOutput: Encodable {
    let blocksWritten: Int
}
