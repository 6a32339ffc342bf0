// SPDX-License-Identifier: GPL-2.0
// SRP_CMD parsing and SRP_RSP building (src/core/srp_cmd.cpp): every length
// and bound check on IU bytes as they come off the wire.
#include <srpt/core/srp_cmd.h>

#include "../harness/core_test.h"
#include "../harness/login_test.h"

namespace {

using srpt::ChannelIuLimits;
using srpt::CmdRefusal;
using srpt::ParsedCmd;
using srpt::RspFields;
namespace srp = srpt::srp;

constexpr ChannelIuLimits kNoImm{8260, false, 0};
constexpr ChannelIuLimits kImm68{8260, true, 68};

class SrpCmdTest : public CoreTest {
 protected:
  CmdRefusal Parse(const Bytes& iu, const ChannelIuLimits& lim = kNoImm) {
    // The IU in a buffer of exactly its length, so ASan sees any overread.
    buf_.assign(iu.begin(), iu.end());
    return srpt::parse_srp_cmd(buf_.data(), static_cast<uint32_t>(buf_.size()), lim,
                               store_.data(), &out_);
  }
  // Into a store of `cap` segments (the channel's per-command inline store).
  CmdRefusal ParseCap(const Bytes& iu, uint32_t cap) {
    buf_.assign(iu.begin(), iu.end());
    return srpt::parse_srp_cmd(buf_.data(), static_cast<uint32_t>(buf_.size()), kNoImm,
                               store_.data(), &out_, cap);
  }
  CmdRefusal ParseLen(const Bytes& iu, uint32_t len, const ChannelIuLimits& lim = kNoImm) {
    buf_.assign(iu.begin(), iu.end());
    return srpt::parse_srp_cmd(buf_.data(), len, lim, store_.data(), &out_);
  }
  // Decodes `table` as the fetched external table, in the segment store
  // itself as the channel does.
  CmdRefusal Decode(const Bytes& table) {
    EXPECT_LE(table.size(), sizeof(srpt_rdma_seg) * store_.size());
    auto* b = reinterpret_cast<uint8_t*>(store_.data());
    for (size_t i = 0; i < table.size(); i++) b[i] = table[i];
    return srpt::decode_desc_table(b, &out_);
  }
  static SrpCmd Out(uint8_t fmt, uint8_t cnt) {
    SrpCmd c;
    c.buf_fmt = static_cast<uint8_t>(fmt << 4);
    c.out_cnt = cnt;
    return c;
  }
  static SrpCmd In(uint8_t fmt, uint8_t cnt) {
    SrpCmd c;
    c.buf_fmt = fmt;
    c.in_cnt = cnt;
    return c;
  }
  // An indirect descriptor with `n` table entries of `seg` bytes in the IU.
  static Bytes Indirect(uint32_t n, uint32_t seg, uint32_t total, uint32_t table_len = 0) {
    Bytes b = IndirectHeader(0x9000, 0x77, table_len ? table_len : n * 16, total);
    for (uint32_t i = 0; i < n; i++) Append(b, DirectDesc(0x1000 * (i + 1), 100 + i, seg));
    return b;
  }
  Bytes buf_;
  std::vector<srpt_rdma_seg> store_ = std::vector<srpt_rdma_seg>(srpt::kMaxRdmaSegs);
  ParsedCmd out_{};
};

// A table of `n` descriptors of `seg` bytes as it lies in initiator memory.
Bytes Table(uint32_t n, uint32_t seg) {
  Bytes b;
  for (uint32_t i = 0; i < n; i++) Append(b, DirectDesc(0x1000 * (i + 1), 100 + i, seg));
  return b;
}

}  // namespace

TEST_F(SrpCmdTest, TheHeaderAlone) {
  SrpCmd c;
  c.cdb = {0x12, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  c.lun = {0, 3, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(buf_.data() + 32, out_.cdb);
  EXPECT_EQ(16u, out_.cdb_len);
  EXPECT_EQ(3u, out_.lun);
  EXPECT_EQ(SRPT_DIR_NONE, out_.dir);
  EXPECT_EQ(0u, out_.data_len);
  EXPECT_EQ(0u, out_.nsegs);
  EXPECT_EQ(nullptr, out_.imm);
  for (int i = 0; i < 8; i++) EXPECT_EQ(0xa0 + i, out_.tag.bytes[i]);
}

TEST_F(SrpCmdTest, ShorterThanTheHeaderIsTruncated) {
  const Bytes iu = EncodeSrpCmd(SrpCmd{});
  for (uint32_t len : {47u, 36u, 1u, 0u})
    EXPECT_EQ(CmdRefusal::Truncated, ParseLen(iu, len)) << len;
}

TEST_F(SrpCmdTest, TaskAttributes) {
  const std::pair<uint8_t, srpt_task_attr> cases[] = {
      {0, SRPT_TASK_SIMPLE}, {1, SRPT_TASK_HEAD}, {2, SRPT_TASK_ORDERED},
      {4, SRPT_TASK_ACA},    {3, SRPT_TASK_SIMPLE}, {0xff, SRPT_TASK_SIMPLE}};
  for (const auto& [wire, want] : cases) {
    SrpCmd c;
    c.task_attr = wire;
    ASSERT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
    EXPECT_EQ(want, out_.attr) << static_cast<int>(wire);
  }
}

TEST_F(SrpCmdTest, AdditionalCdbBytes) {
  SrpCmd c;
  c.add_cdb_len = 16;
  EXPECT_EQ(CmdRefusal::Truncated, Parse(EncodeSrpCmd(c))) << "CDB past the IU";
  c.add_cdb = Bytes(16, 0xcd);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(32u, out_.cdb_len);
  // The two low bits are reserved.
  c.add_cdb_len = 16 | 3;
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(32u, out_.cdb_len);
  // Descriptors follow the additional CDB.
  c = Out(srp::kDirect, 1);
  c.add_cdb_len = 8;
  c.add_cdb = Bytes(8, 0);
  c.tail = DirectDesc(0xabc, 5, 4096);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(0xabcu, out_.segs[0].va);
  EXPECT_EQ(4096u, out_.data_len);
  // The largest additional CDB.
  c = SrpCmd{};
  c.add_cdb_len = 0xfc;
  c.add_cdb = Bytes(0xfc, 0);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(16u + 252, out_.cdb_len);
  Bytes iu = EncodeSrpCmd(c);
  iu.pop_back();
  EXPECT_EQ(CmdRefusal::Truncated, Parse(iu));
}

TEST_F(SrpCmdTest, BothDirectionsAreRefused) {
  for (uint8_t fmt : {0x11, 0x22, 0x12, 0x21, 0x33}) {
    SrpCmd c;
    c.buf_fmt = fmt;
    c.tail = Bytes(64, 0);
    EXPECT_EQ(CmdRefusal::Bidirectional, Parse(EncodeSrpCmd(c))) << std::hex << int(fmt);
  }
}

TEST_F(SrpCmdTest, ReservedFormatsAreRefused) {
  for (uint8_t fmt = 4; fmt < 16; fmt++) {
    SrpCmd out = Out(fmt, 1);
    out.tail = Bytes(64, 0);
    EXPECT_EQ(CmdRefusal::BadFormat, Parse(EncodeSrpCmd(out))) << int(fmt);
    SrpCmd in = In(fmt, 1);
    in.tail = Bytes(64, 0);
    EXPECT_EQ(CmdRefusal::BadFormat, Parse(EncodeSrpCmd(in))) << int(fmt);
  }
}

TEST_F(SrpCmdTest, DirectDescriptor) {
  for (bool write : {true, false}) {
    SrpCmd c = write ? Out(srp::kDirect, 1) : In(srp::kDirect, 1);
    c.tail = DirectDesc(0x1122334455667788ull, 0xdeadbeef, 0x10000);
    EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
    EXPECT_EQ(write ? SRPT_DIR_WRITE : SRPT_DIR_READ, out_.dir);
    ASSERT_EQ(1u, out_.nsegs);
    EXPECT_EQ(0x1122334455667788ull, out_.segs[0].va);
    EXPECT_EQ(0xdeadbeefu, out_.segs[0].rkey);
    EXPECT_EQ(0x10000u, out_.segs[0].len);
    EXPECT_EQ(0x10000u, out_.data_len);
    Bytes iu = EncodeSrpCmd(c);
    iu.pop_back();
    EXPECT_EQ(CmdRefusal::Truncated, Parse(iu)) << "15 bytes of descriptor";
  }
}

TEST_F(SrpCmdTest, IndirectTableInTheIu) {
  SrpCmd c = In(srp::kIndirect, 3);
  c.tail = Indirect(3, 512, 1536);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(SRPT_DIR_READ, out_.dir);
  ASSERT_EQ(3u, out_.nsegs);
  for (uint32_t i = 0; i < 3; i++) {
    EXPECT_EQ(0x1000u * (i + 1), out_.segs[i].va);
    EXPECT_EQ(100 + i, out_.segs[i].rkey);
    EXPECT_EQ(512u, out_.segs[i].len);
  }
  EXPECT_EQ(1536u, out_.data_len);
  // The total may be less than the segments offer...
  c.tail = Indirect(3, 512, 1000);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(1000u, out_.data_len);
  // ...never more.
  c.tail = Indirect(3, 512, 1537);
  EXPECT_EQ(CmdRefusal::LengthMismatch, Parse(EncodeSrpCmd(c)));
}

// A table in the IU with more entries than the caller's store holds is not
// parsed into it: StoreTooSmall, nothing written past the store, and a
// parse into a full store then takes it. A malformed IU is refused as such
// whatever the store, and an external table is only described.
TEST_F(SrpCmdTest, ATableLargerThanTheStoreAsksForALargerOne) {
  SrpCmd c = In(srp::kIndirect, 3);
  c.tail = Indirect(3, 512, 1536);
  const srpt_rdma_seg canary{0x5a5a, 0x5a, 0x5a};
  for (auto& s : store_) s = canary;
  EXPECT_EQ(CmdRefusal::StoreTooSmall, ParseCap(EncodeSrpCmd(c), 2));
  for (size_t i = 2; i < store_.size(); i++) ASSERT_EQ(canary.va, store_[i].va) << i;
  EXPECT_EQ(CmdRefusal::None, ParseCap(EncodeSrpCmd(c), 3));
  ASSERT_EQ(3u, out_.nsegs);
  EXPECT_EQ(0x3000u, out_.segs[2].va);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));

  SrpCmd direct = Out(srp::kDirect, 1);
  direct.tail = DirectDesc(0x1000, 1, 512);
  EXPECT_EQ(CmdRefusal::None, ParseCap(EncodeSrpCmd(direct), 1));

  SrpCmd odd = In(srp::kIndirect, 3);
  odd.tail = Indirect(3, 512, 1536, 47);
  EXPECT_EQ(CmdRefusal::TableLength, ParseCap(EncodeSrpCmd(odd), 1));

  SrpCmd ext = Out(srp::kIndirect, 1);
  ext.tail = IndirectHeader(0xabcdef000, 0x55, 100 * 16, 100 * 512);
  Append(ext.tail, DirectDesc(0x1000, 100, 512));
  EXPECT_EQ(CmdRefusal::None, ParseCap(EncodeSrpCmd(ext), 1));
  EXPECT_EQ(1600u, out_.ext.len);
  EXPECT_EQ(0u, out_.nsegs);
}

TEST_F(SrpCmdTest, IndirectBounds) {
  SrpCmd c = Out(srp::kIndirect, 2);
  c.tail = IndirectHeader(0, 0, 32, 0);
  c.tail.pop_back();
  EXPECT_EQ(CmdRefusal::Truncated, Parse(EncodeSrpCmd(c))) << "header cut short";
  // An empty table, with or without descriptors claimed in the IU.
  c = Out(srp::kIndirect, 1);
  c.tail = Indirect(1, 512, 512, 0);
  c.tail[12] = c.tail[13] = c.tail[14] = c.tail[15] = 0;  // table_desc.len 0
  EXPECT_EQ(CmdRefusal::EmptyTable, Parse(EncodeSrpCmd(c)));
  c = Out(srp::kIndirect, 0);
  c.tail = IndirectHeader(0x9000, 0x77, 0, 0);
  EXPECT_EQ(CmdRefusal::EmptyTable, Parse(EncodeSrpCmd(c)));
  // A table length that is no multiple of a descriptor.
  for (uint32_t bad : {15u, 17u, 40u, 0xfffffff1u}) {
    c = Out(srp::kIndirect, 1);
    c.tail = Indirect(1, 512, 512, bad);
    EXPECT_EQ(CmdRefusal::TableLength, Parse(EncodeSrpCmd(c))) << bad;
  }
  // More descriptors claimed in the IU than the whole table has.
  c = Out(srp::kIndirect, 3);
  c.tail = Indirect(3, 512, 1024, 32);
  EXPECT_EQ(CmdRefusal::TableCount, Parse(EncodeSrpCmd(c)));
  // Entries announced but not all in the IU.
  c = Out(srp::kIndirect, 2);
  c.tail = Indirect(2, 512, 1024);
  Bytes iu = EncodeSrpCmd(c);
  iu.resize(iu.size() - 1);
  EXPECT_EQ(CmdRefusal::Truncated, Parse(iu));
  // The IU's length field is what counts, not the buffer.
  iu = EncodeSrpCmd(c);
  EXPECT_EQ(CmdRefusal::Truncated, ParseLen(iu, static_cast<uint32_t>(iu.size() - 16)));
  EXPECT_EQ(CmdRefusal::None, ParseLen(iu, static_cast<uint32_t>(iu.size())));
  // The data-in count does not stand in for a data-out table.
  c = Out(srp::kIndirect, 0);
  c.in_cnt = 2;
  c.tail = Indirect(2, 512, 1024);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(0u, out_.nsegs) << "no entry in the IU for data-out: all fetched";
  EXPECT_EQ(32u, out_.ext.len);
}

TEST_F(SrpCmdTest, AtMostMaxRdmaSegsSegments) {
  const uint32_t max = srpt::kMaxRdmaSegs;
  ASSERT_EQ(256u, max);
  // In the IU: the count field is 8 bits, so 255 at most there.
  SrpCmd c = Out(srp::kIndirect, 255);
  c.tail = Indirect(255, 4096, 255 * 4096);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(255u, out_.nsegs);
  EXPECT_EQ(0x1000u * 255, out_.segs[254].va);
  // External: up to max entries, one more is refused before any fetch.
  c = Out(srp::kIndirect, 1);
  c.tail = Indirect(1, 4096, max * 4096, max * 16);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(max * 16, out_.ext.len);
  c.tail = Indirect(1, 4096, max * 4096, (max + 1) * 16);
  EXPECT_EQ(CmdRefusal::TooManySegments, Parse(EncodeSrpCmd(c)));
  c.tail = Indirect(1, 4096, 4096, 0xfffffff0u);
  EXPECT_EQ(CmdRefusal::TooManySegments, Parse(EncodeSrpCmd(c)));
}

// The descriptors' total length is the length the
// target core is given for the command, and for a CDB that moves no data
// (TEST UNIT READY with a data-out descriptor) it allocates all of it.
// In-tree refuses no command for its length (srp_max_rdma_size is only
// advertised in the DM IOC profile, capped at 16 MiB); here a length above
// 16 MiB is refused before the target core or any table fetch sees it.
TEST_F(SrpCmdTest, ADataLengthAboveSixteenMiBIsRefused) {
  constexpr uint32_t kBound = 16u << 20;
  static_assert(kBound == srpt::kMaxCmdDataLen);
  for (bool out : {true, false}) {
    SCOPED_TRACE(out ? "data-out" : "data-in");
    auto cmd = [out](uint8_t fmt, uint8_t cnt) { return out ? Out(fmt, cnt) : In(fmt, cnt); };
    // Direct.
    for (uint32_t len : {kBound, kBound + 1, 0xffffffffu}) {
      SrpCmd c = cmd(srp::kDirect, 1);
      c.tail = DirectDesc(0x1000, 5, len);
      const CmdRefusal r = Parse(EncodeSrpCmd(c));
      if (len <= kBound) {
        EXPECT_EQ(CmdRefusal::None, r) << len;
        EXPECT_EQ(len, out_.data_len);
      } else {
        EXPECT_NE(CmdRefusal::None, r) << len;
      }
    }
    // Indirect, the table in the IU: segments that cover the length.
    SrpCmd c = cmd(srp::kIndirect, 2);
    c.tail = Indirect(2, kBound / 2, kBound);
    EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
    c.tail = Indirect(2, 0x80000000u, 0xffffffffu);
    EXPECT_NE(CmdRefusal::None, Parse(EncodeSrpCmd(c))) << "4 GiB in two segments";
    // Indirect, the table in initiator memory: refused before the fetch.
    c = cmd(srp::kIndirect, 1);
    c.tail = Indirect(1, 0x80000000u, 0xffffffffu, 4 * 16);
    EXPECT_NE(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
    EXPECT_EQ(0u, out_.ext.len) << "no table to fetch";
    c.tail = Indirect(1, kBound / 4, kBound, 4 * 16);
    EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
    EXPECT_EQ(64u, out_.ext.len);
  }
}

TEST_F(SrpCmdTest, ExternalTableIsDescribedThenDecoded) {
  // ib_srp with cmd_sg_entries=1: one descriptor in the IU, table_desc
  // covering all four in its memory.
  SrpCmd c = Out(srp::kIndirect, 1);
  c.tail = IndirectHeader(0xabcdef000, 0x55, 4 * 16, 4 * 8192);
  Append(c.tail, DirectDesc(0x1000, 100, 8192));
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(SRPT_DIR_WRITE, out_.dir);
  EXPECT_EQ(0xabcdef000u, out_.ext.va);
  EXPECT_EQ(0x55u, out_.ext.rkey);
  EXPECT_EQ(64u, out_.ext.len);
  EXPECT_EQ(0u, out_.nsegs) << "segments only after the fetch";
  EXPECT_EQ(4u * 8192, out_.data_len);
  EXPECT_EQ(store_.data(), out_.segs);

  EXPECT_EQ(CmdRefusal::None, Decode(Table(4, 8192)));
  ASSERT_EQ(4u, out_.nsegs);
  for (uint32_t i = 0; i < 4; i++) {
    EXPECT_EQ(0x1000u * (i + 1), out_.segs[i].va) << i;
    EXPECT_EQ(100 + i, out_.segs[i].rkey) << i;
    EXPECT_EQ(8192u, out_.segs[i].len) << i;
  }
  EXPECT_EQ(4u * 8192, out_.data_len);
}

TEST_F(SrpCmdTest, AFetchedTableMustCoverTheDataLength) {
  SrpCmd c = In(srp::kIndirect, 1);
  c.tail = IndirectHeader(0x9000, 0x77, 3 * 16, 3 * 512 + 1);
  Append(c.tail, DirectDesc(0x1000, 100, 512));
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(CmdRefusal::LengthMismatch, Decode(Table(3, 512)));
  // Below is fine: the SCSI layer may ask for less than the buffers offer.
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(CmdRefusal::None, Decode(Table(3, 1024)));
  EXPECT_EQ(3u, out_.nsegs);
  // Huge segment lengths do not wrap the sum.
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  Bytes t = Table(3, 0xffffffffu);
  EXPECT_EQ(CmdRefusal::None, Decode(t));
  c.tail = IndirectHeader(0x9000, 0x77, 3 * 16, srpt::kMaxCmdDataLen);
  Append(c.tail, DirectDesc(0x1000, 100, 1));
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(CmdRefusal::LengthMismatch, Decode(Table(3, 1)));
  // A length beyond kMaxCmdDataLen never gets as far as a fetch.
  c.tail = IndirectHeader(0x9000, 0x77, 3 * 16, 0xffffffffu);
  Append(c.tail, DirectDesc(0x1000, 100, 1));
  EXPECT_EQ(CmdRefusal::DataTooLong, Parse(EncodeSrpCmd(c)));
}

TEST_F(SrpCmdTest, ImmediateData) {
  SrpCmd c = Out(srp::kImmediate, 1);
  c.tail = {0, 0, 0, 5};
  c.tail.resize(20, 0);
  Append(c.tail, {'h', 'e', 'l', 'l', 'o'});
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c), kImm68));
  EXPECT_EQ(SRPT_DIR_WRITE, out_.dir);
  EXPECT_EQ(buf_.data() + 68, out_.imm);
  EXPECT_EQ(5u, out_.imm_len);
  EXPECT_EQ(5u, out_.data_len);
  EXPECT_EQ(0u, out_.nsegs);
  // Zero bytes of immediate data.
  c.tail = {0, 0, 0, 0};
  c.tail.resize(20, 0);
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c), kImm68));
  EXPECT_EQ(0u, out_.imm_len);
}

TEST_F(SrpCmdTest, ImmediateDataBounds) {
  SrpCmd c = Out(srp::kImmediate, 1);
  c.tail = {0, 0, 0, 5};
  c.tail.resize(20, 0);
  Append(c.tail, {1, 2, 3, 4, 5});
  const Bytes iu = EncodeSrpCmd(c);  // 73 bytes
  EXPECT_EQ(CmdRefusal::ImmediateNotGranted, Parse(iu, kNoImm));
  EXPECT_EQ(CmdRefusal::ImmediateOutOfBounds, ParseLen(iu, 72, kImm68)) << "past the received bytes";
  EXPECT_EQ(CmdRefusal::ImmediateOutOfBounds, Parse(iu, ChannelIuLimits{72, true, 68}))
      << "past the granted IU length";
  EXPECT_EQ(CmdRefusal::None, Parse(iu, ChannelIuLimits{73, true, 68}));
  // A length so large that offset + length wraps 32 bits.
  SrpCmd huge = c;
  huge.tail[0] = huge.tail[1] = huge.tail[2] = huge.tail[3] = 0xff;
  EXPECT_EQ(CmdRefusal::ImmediateOutOfBounds, Parse(EncodeSrpCmd(huge), kImm68));
  // The descriptor itself cut short.
  SrpCmd shorty = Out(srp::kImmediate, 1);
  shorty.tail = {0, 0, 0};
  EXPECT_EQ(CmdRefusal::Truncated, Parse(EncodeSrpCmd(shorty), kImm68));
  // Immediate data only goes with data-out.
  SrpCmd in = In(srp::kImmediate, 1);
  in.tail = c.tail;
  EXPECT_EQ(CmdRefusal::BadFormat, Parse(EncodeSrpCmd(in), kImm68));
}

TEST_F(SrpCmdTest, ImmediateDataMustNotOverlapItsDescriptorOrTheCdb) {
  // The in-tree driver refuses immediate data that starts before the end of
  // its own descriptor: the bytes would be the descriptor and the CDB.
  SrpCmd c = Out(srp::kImmediate, 1);
  c.add_cdb_len = 20;  // descriptor at 68..71, data said to start at 68
  c.add_cdb = Bytes(20, 0xcd);
  c.tail = {0, 0, 0, 8};
  c.tail.resize(40, 0);
  EXPECT_EQ(CmdRefusal::ImmediateOverlap, Parse(EncodeSrpCmd(c), kImm68));
  // Offset 48 (granted at login) overlaps the descriptor right behind the
  // header: no immediate command can use it.
  SrpCmd d = Out(srp::kImmediate, 1);
  d.tail = {0, 0, 0, 4, 1, 2, 3, 4};
  for (uint16_t off : {48, 49, 51}) {
    EXPECT_EQ(CmdRefusal::ImmediateOverlap,
              Parse(EncodeSrpCmd(d), ChannelIuLimits{8260, true, off}))
        << off;
  }
  d.tail = {0, 0, 0, 4, 1, 2, 3, 4};
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(d), ChannelIuLimits{8260, true, 52}));
  EXPECT_EQ(1, out_.imm[0]);
  // The additional CDB may end exactly where the descriptor must.
  SrpCmd e = Out(srp::kImmediate, 1);
  e.add_cdb_len = 16;
  e.add_cdb = Bytes(16, 0);
  e.tail = {0, 0, 0, 1, 0x42};
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(e), kImm68));
  EXPECT_EQ(0x42, out_.imm[0]);
}

TEST_F(SrpCmdTest, EveryRefusalHasAName) {
  for (int r = 0; r <= static_cast<int>(CmdRefusal::StoreTooSmall); r++)
    EXPECT_STRNE("?", srpt::cmd_refusal_name(static_cast<CmdRefusal>(r))) << r;
}

// --- LUNs -----------------------------------------------------------------------------

TEST_F(SrpCmdTest, ScsiLunToIntAsLinuxDoes) {
  const std::pair<std::array<uint8_t, 8>, uint64_t> cases[] = {
      {{0, 0, 0, 0, 0, 0, 0, 0}, 0},
      {{0, 1, 0, 0, 0, 0, 0, 0}, 1},
      {{0x40, 0x05, 0, 0, 0, 0, 0, 0}, 0x4005},       // flat space
      {{0, 0xff, 0, 0, 0, 0, 0, 0}, 0xff},
      {{0, 0, 0, 1, 0, 0, 0, 0}, 0x10000},            // second level
      {{1, 2, 3, 4, 5, 6, 7, 8}, 0x0708050603040102ull},
      {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, ~0ull}};
  for (const auto& [lun, want] : cases) {
    uint8_t raw[8];
    for (int i = 0; i < 8; i++) raw[i] = lun[i];
    EXPECT_EQ(want, srpt::scsi_lun_to_int(raw)) << std::hex << want;
  }
}

// --- SRP_RSP ----------------------------------------------------------------------------

namespace {

class BuildRspTest : public CoreTest {
 protected:
  // Builds into a buffer of `cap` bytes followed by a canary.
  RspView Build(uint32_t cap, const RspFields& f) {
    buf_.assign(cap + 16, 0xee);
    len_ = srpt::build_srp_rsp(buf_.data(), cap, f);
    EXPECT_LE(len_, cap);
    for (size_t i = cap; i < buf_.size(); i++) EXPECT_EQ(0xee, buf_[i]) << "wrote past cap";
    return DecodeRsp(Bytes(buf_.begin(), buf_.begin() + len_));
  }
  static RspFields Fields() {
    RspFields f{};
    for (int i = 0; i < 8; i++) f.tag.bytes[i] = static_cast<uint8_t>(0x10 + i);
    f.req_lim_delta = 7;
    return f;
  }
  Bytes buf_;
  uint32_t len_ = 0;
};

}  // namespace

TEST_F(BuildRspTest, Plain) {
  const RspView v = Build(256, Fields());
  EXPECT_EQ(36u, len_);
  EXPECT_EQ(0xc1, v.opcode);
  EXPECT_EQ(7u, v.req_lim_delta);
  EXPECT_EQ(0x1011121314151617ull, v.tag);
  EXPECT_EQ(0, v.flags);
  EXPECT_EQ(0, v.status);
  for (size_t i : {1, 2, 3, 16, 17}) EXPECT_EQ(0, buf_[i]) << i;
}

TEST_F(BuildRspTest, SenseIsTruncatedToTheBuffer) {
  const Bytes sense(96, 0x5e);
  RspFields f = Fields();
  f.status = 0x02;
  f.sense = sense.data();
  f.sense_len = 96;
  for (uint32_t cap : {256u, 132u, 131u, 54u, 40u, 37u}) {
    const RspView v = Build(cap, f);
    const uint32_t want = std::min(96u, cap - 36);
    EXPECT_EQ(36 + want, len_) << cap;
    EXPECT_EQ(want, v.sense_len) << cap;
    EXPECT_EQ(srp::kRspFlagSnsValid, v.flags);
  }
  // No room at all: no sense, and no flag claiming some.
  const RspView none = Build(36, f);
  EXPECT_EQ(36u, len_);
  EXPECT_EQ(0, none.flags);
  // A sense length of zero or a null pointer: no sense.
  f.sense_len = 0;
  EXPECT_EQ(0, Build(256, f).flags);
  f.sense = nullptr;
  f.sense_len = 18;
  EXPECT_EQ(0, Build(256, f).flags);
}

TEST_F(BuildRspTest, ResidualsPerDirection) {
  struct Case {
    srpt_data_dir dir;
    bool under, over;
    uint8_t flags;
    bool out;
  };
  const Case cases[] = {
      {SRPT_DIR_WRITE, true, false, srp::kRspFlagDoUnder, true},
      {SRPT_DIR_WRITE, false, true, srp::kRspFlagDoOver, true},
      {SRPT_DIR_READ, true, false, srp::kRspFlagDiUnder, false},
      {SRPT_DIR_READ, false, true, srp::kRspFlagDiOver, false},
      {SRPT_DIR_NONE, true, false, srp::kRspFlagDiUnder, false},
  };
  for (const Case& c : cases) {
    RspFields f = Fields();
    f.dir = c.dir;
    f.underflow = c.under;
    f.overflow = c.over;
    f.residual = 4096;
    const RspView v = Build(256, f);
    EXPECT_EQ(c.flags, v.flags);
    EXPECT_EQ(c.out ? 4096u : 0u, v.data_out_res);
    EXPECT_EQ(c.out ? 0u : 4096u, v.data_in_res);
  }
  // A residual without under- or overflow, or a zero residual: nothing.
  RspFields f = Fields();
  f.dir = SRPT_DIR_READ;
  f.residual = 512;
  EXPECT_EQ(0, Build(256, f).flags);
  f.residual = 0;
  f.underflow = true;
  EXPECT_EQ(0, Build(256, f).flags);
}

TEST_F(BuildRspTest, TaskManagementResponseData) {
  RspFields f = Fields();
  f.has_rsp_code = true;
  f.rsp_code = srpt::kTmrNotSupported;
  RspView v = Build(256, f);
  EXPECT_EQ(40u, len_);
  EXPECT_EQ(srp::kRspFlagRspValid, v.flags);
  EXPECT_EQ(4u, v.resp_len);
  EXPECT_EQ((Bytes{0, 0, 0, 4}), v.resp_data);
  // Response data, then sense, both fitted.
  const Bytes sense(18, 0x70);
  f.sense = sense.data();
  f.sense_len = 18;
  v = Build(50, f);
  EXPECT_EQ(50u, len_);
  EXPECT_EQ(srp::kRspFlagRspValid | srp::kRspFlagSnsValid, v.flags);
  EXPECT_EQ(10u, v.sense_len);
  // The smallest buffer the callers use (srp_max_rsp_size >= 40).
  v = Build(40, f);
  EXPECT_EQ(40u, len_);
  EXPECT_EQ(srp::kRspFlagRspValid, v.flags);
}

// Only the sense bytes the sense data claims go out.
TEST_F(BuildRspTest, BuiltSenseLength) {
  uint8_t sense[96] = {};
  sense[0] = 0x70;
  sense[7] = 10;
  EXPECT_EQ(18u, srpt::built_sense_len(sense, 96)) << "fixed, 8 + 10";
  sense[0] = 0xf0;
  EXPECT_EQ(18u, srpt::built_sense_len(sense, 96)) << "fixed with VALID set";
  sense[0] = 0x71;
  EXPECT_EQ(18u, srpt::built_sense_len(sense, 18));
  EXPECT_EQ(12u, srpt::built_sense_len(sense, 12)) << "never more than reported";
  sense[0] = 0x72;
  sense[7] = 88;
  EXPECT_EQ(96u, srpt::built_sense_len(sense, 96)) << "descriptor, 8 + 88";
  sense[0] = 0x73;
  sense[7] = 250;
  EXPECT_EQ(96u, srpt::built_sense_len(sense, 96));
  sense[0] = 0x5e;  // no sense format: the reported length as is
  EXPECT_EQ(96u, srpt::built_sense_len(sense, 96));
  sense[0] = 0x70;
  EXPECT_EQ(5u, srpt::built_sense_len(sense, 5)) << "shorter than a header";
  EXPECT_EQ(0u, srpt::built_sense_len(sense, 0));
  EXPECT_EQ(0u, srpt::built_sense_len(nullptr, 18));
}

TEST_F(BuildRspTest, RefusalSense) {
  uint8_t sense[srpt::kRefusalSenseLen];
  for (CmdRefusal r : {CmdRefusal::Truncated, CmdRefusal::Bidirectional,
                       CmdRefusal::BadFormat, CmdRefusal::EmptyTable,
                       CmdRefusal::TableLength, CmdRefusal::TableCount,
                       CmdRefusal::TooManySegments, CmdRefusal::LengthMismatch,
                       CmdRefusal::DataTooLong, CmdRefusal::ImmediateOutOfBounds}) {
    srpt::refusal_sense(r, sense);
    EXPECT_EQ(0x70, sense[0]);
    EXPECT_EQ(0x05, sense[2]) << "ILLEGAL REQUEST";
    EXPECT_EQ(10, sense[7]);
    EXPECT_EQ(0x0e, sense[12]) << "INVALID FIELD IN COMMAND INFORMATION UNIT";
    EXPECT_EQ(0x03, sense[13]);
  }
  srpt::refusal_sense(CmdRefusal::TableFetchFailed, sense);
  EXPECT_EQ(0x70, sense[0]);
  EXPECT_EQ(0x0b, sense[2]) << "ABORTED COMMAND: the initiator may retry";
  EXPECT_EQ(0, sense[12]);
}

// Segment lengths are 32-bit each and their sum is not: two segments of
// 4 GiB - 1 and 513 bytes offer more than a 1 KiB transfer needs (the SCSI
// layer may ask for less than the buffers hold), though their sum in 32
// bits would wrap to 512 and refuse a valid command.
TEST_F(SrpCmdTest, SegmentLengthsSummingPast4GiBDoNotWrap) {
  SrpCmd c = In(srp::kIndirect, 2);
  c.tail = IndirectHeader(0x9000, 0x77, 2 * 16, 1024);
  Append(c.tail, DirectDesc(0x1000, 100, 0xffffffffu));
  Append(c.tail, DirectDesc(0x2000, 101, 513));
  EXPECT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(c)));
  EXPECT_EQ(2u, out_.nsegs);
  EXPECT_EQ(1024u, out_.data_len);
  // The same in a fetched table.
  SrpCmd e = In(srp::kIndirect, 1);
  e.tail = IndirectHeader(0x9000, 0x77, 2 * 16, 1024);
  Append(e.tail, DirectDesc(0x1000, 100, 512));
  ASSERT_EQ(CmdRefusal::None, Parse(EncodeSrpCmd(e)));
  Bytes t = DirectDesc(0x1000, 100, 0xffffffffu);
  Append(t, DirectDesc(0x2000, 101, 513));
  EXPECT_EQ(CmdRefusal::None, Decode(t));
  EXPECT_EQ(2u, out_.nsegs);
}
