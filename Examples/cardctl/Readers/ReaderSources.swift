import CardFlow
import CardFlowCCID
import CardFlowPCSC
import CardFlowSimulatorReaders
import CardFlowUFR
import CardFlowVPCD

/// The reader backends `--reader` takes, one entry each: a new backend is one line here.
let readerSources: [any ReaderSource] = [
    USBReaderSource(), PCSCReaderSource(), VPCDReaderSource(), SimulatorReaderSource(),
    UFRReaderSource(), ReplayReaderSource(),
]
