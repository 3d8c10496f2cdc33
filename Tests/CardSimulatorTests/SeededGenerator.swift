import CardSimulator

typealias SeededGenerator = SeededRandom
