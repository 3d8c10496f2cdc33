import Testing

@testable import CardFlowStorageCards

@Suite("Storage card kinds from PC/SC part 3 ATRs")
struct StorageCardKindTests {
    @Test("published ATRs name their cards")
    func publishedATRs() {
        // ACR122U / pcsc-tools ATRs (reference/ccid.md §3.6).
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA000000306030001000000006A")) == .mifareClassic1K)
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA0000003060300020000000069")) == .mifareClassic4K)
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA0000003060300030000000068")) == .mifareUltralight)
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA00000030603003A0000000051")) == .mifareUltralightC)
        // ACR1252U FeliCa ATR (reference/storage-cards.md).
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA0000003061100 3B0000000042")) == .felica)
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA00000030603002600000000 4D"))?.classicLayout == .mini)
        #expect(StorageCardKind(atr: bytes("3B8F8001804F0CA00000030603002600000000 4D")) == .mifareMini)
        #expect(
            StorageCardKind(atr: bytes("3B8F8001804F0CA00000030 60B00140000000077"))
                == .unknown(standard: 0x0B, cardName: 0x0014))
    }

    @Test("non-storage ATRs give nil")
    func others() {
        #expect(StorageCardKind(atr: bytes("3B8180018080")) == nil)
        #expect(StorageCardKind(atr: []) == nil)
        #expect(StorageCardKind(atr: [0x3B]) == nil)
    }

    @Test("layouts: Mini, 1K and 4K geometry")
    func layouts() {
        #expect(ClassicCardLayout.mini.blockCount == 20 && ClassicCardLayout.mini.sectorCount == 5)
        #expect(ClassicCardLayout.oneK.trailerBlock(ofSector: 15) == 63)
        let fourK = ClassicCardLayout.fourK
        #expect(fourK.sectorCount == 40 && fourK.blockCount == 256)
        #expect(fourK.firstBlock(ofSector: 32) == 128 && fourK.trailerBlock(ofSector: 32) == 143)
        #expect(fourK.trailerBlock(ofSector: 39) == 255)
        #expect(
            fourK.sector(ofBlock: 127) == 31 && fourK.sector(ofBlock: 128) == 32 && fourK.sector(ofBlock: 256) == nil)
        #expect(fourK.dataBlocks(ofSector: 33).count == 15)
        #expect(ClassicCardLayout.oneK.dataBlocks(ofSector: 0) == [1, 2])
        #expect(fourK.accessConditionIndex(ofBlock: 128 + 4) == 0 && fourK.accessConditionIndex(ofBlock: 128 + 5) == 1)
        #expect(fourK.accessConditionIndex(ofBlock: 143) == 3 && fourK.accessConditionIndex(ofBlock: 142) == 2)
    }
}
