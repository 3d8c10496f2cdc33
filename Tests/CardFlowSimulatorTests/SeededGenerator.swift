import CardFlowSimulator

typealias SeededGenerator = SeededRandom
