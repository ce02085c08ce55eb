// Guarded GM: every allocation sits between two inaccessible pages, and the
// bytes between the tensor and those pages hold a pattern. An access that
// reaches a guard page faults at once (the worker and its block are known:
// faults.cc); a write into the pattern is found when the launch ends.
//
// Layout (page P, tensor of S bytes, B = S rounded up to pages):
//   [guard P][pattern][tensor S, 512-byte aligned][pattern < 512][guard P]
// The tensor ends as close to the back guard as 512-byte alignment allows,
// so writes past the end fault at once whenever S is a multiple of 512.
// Writes within the tensor's last 32-byte block are allowed: DataCopy moves
// whole 32-byte blocks and device allocations are padded to them.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "core.h"
#include "faults.h"

namespace sk_twin {
namespace {

constexpr uint64_t kAlign = 512;
constexpr uint64_t kBlock = 32;
// How far from a tensor an address may be and still be described by it.
constexpr uint64_t kNearBytes = 16u << 20;

struct Region {
  uint8_t* map = nullptr;
  size_t map_len = 0;
  uint8_t* body = nullptr;  // between the guard pages
  uint8_t* body_end = nullptr;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  std::string name;
};

std::mutex g_mu;
std::map<uintptr_t, Region> g_regions;  // by data address; guarded by g_mu
uint64_t g_serial = 0;                  // guarded by g_mu

uint8_t Pattern(uintptr_t addr) { return static_cast<uint8_t>(0xa5u ^ ((addr * 0x3bu) >> 3)); }

void Fill(uint8_t* from, uint8_t* to) {
  for (uint8_t* p = from; p < to; ++p) *p = Pattern(reinterpret_cast<uintptr_t>(p));
}

uint8_t* AllowedEnd(const Region& r) { return r.data + (r.size + kBlock - 1) / kBlock * kBlock; }

std::string Bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

std::string Named(const Region& r) { return "GM tensor '" + r.name + "' (" + Bytes(r.size) + ")"; }

// [first, last] damaged bytes of [from, to), relative to the tensor start.
bool Damaged(const Region& r, uint8_t* from, uint8_t* to, int64_t* first, int64_t* last) {
  bool any = false;
  for (uint8_t* p = from; p < to; ++p) {
    if (*p == Pattern(reinterpret_cast<uintptr_t>(p))) continue;
    int64_t off = static_cast<int64_t>(p - r.data);
    if (!any) *first = off;
    *last = off;
    any = true;
  }
  return any;
}

}  // namespace

void* GuardedAlloc(uint64_t bytes, const char* name) {
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t size = bytes == 0 ? 1 : bytes;
  if (size > (UINT64_C(1) << 46)) return nullptr;
  const uint64_t body_len = (size + page - 1) / page * page;
  const size_t map_len = static_cast<size_t>(body_len + 2 * page);
  void* m = mmap(nullptr, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  Region r;
  r.map = static_cast<uint8_t*>(m);
  r.map_len = map_len;
  r.body = r.map + page;
  r.body_end = r.body + body_len;
  if (mprotect(r.map, page, PROT_NONE) != 0 || mprotect(r.body_end, page, PROT_NONE) != 0) {
    munmap(m, map_len);
    return nullptr;
  }
  r.data = r.body + (body_len - size) / kAlign * kAlign;
  r.size = bytes;
  Fill(r.body, r.data);
  Fill(AllowedEnd(r), r.body_end);
  std::lock_guard<std::mutex> lock(g_mu);
  r.name = name != nullptr && *name != '\0' ? name : "#" + std::to_string(g_serial);
  g_serial += 1;
  uint8_t* data = r.data;
  g_regions.emplace(reinterpret_cast<uintptr_t>(data), std::move(r));
  return data;
}

void GuardedFree(void* ptr) {
  if (ptr == nullptr) return;
  Region r;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    auto it = g_regions.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == g_regions.end()) {
      std::fprintf(stderr, "sk twin: sk_twin_gm_free(%p): not a GM allocation of the twin; ignored\n", ptr);
      return;
    }
    r = std::move(it->second);
    g_regions.erase(it);
  }
  munmap(r.map, r.map_len);
}

// The tensor whose own mapping (guard pages and pattern included) holds addr, else the nearest one within
// kNearBytes: mappings sit side by side, so by distance alone a guard-page hit may name the neighbour.
namespace {
const Region* Owner(uintptr_t addr) {
  for (const auto& entry : g_regions) {
    const Region& r = entry.second;
    uintptr_t map_lo = reinterpret_cast<uintptr_t>(r.map);
    if (addr >= map_lo && addr < map_lo + r.map_len) return &r;
  }
  const Region* best = nullptr;
  uint64_t best_distance = kNearBytes;
  for (const auto& entry : g_regions) {
    const Region& r = entry.second;
    uintptr_t lo = reinterpret_cast<uintptr_t>(r.data);
    uintptr_t hi = lo + r.size;
    uint64_t distance = addr < lo ? lo - addr : (addr >= hi ? addr - hi + 1 : 0);
    if (distance <= best_distance && (best == nullptr || distance < best_distance)) {
      best = &r;
      best_distance = distance;
    }
  }
  return best;
}

// The tensors nearest below addr (ending at or before it) and above it (starting after it), each within
// kNearBytes: an address beyond the lower one's mapping, up to the upper one's data (its front guard page,
// say), is as likely a write past the end of the lower one as one before the start of the upper one, so
// both are named.
void Neighbours(uintptr_t addr, const Region** below, const Region** above) {
  *below = *above = nullptr;
  for (const auto& entry : g_regions) {
    const Region& r = entry.second;
    uintptr_t lo = reinterpret_cast<uintptr_t>(r.data);
    uintptr_t hi = lo + r.size;
    if (hi <= addr && addr - hi < kNearBytes &&
        (*below == nullptr || hi > reinterpret_cast<uintptr_t>((*below)->data) + (*below)->size)) {
      *below = &r;
    }
    if (lo > addr && lo - addr <= kNearBytes &&
        (*above == nullptr || lo < reinterpret_cast<uintptr_t>((*above)->data))) {
      *above = &r;
    }
  }
}
}  // namespace

std::string DescribeGmAddress(uintptr_t addr) {
  std::lock_guard<std::mutex> lock(g_mu);
  const Region* best = Owner(addr);
  if (best == nullptr) return "";
  uintptr_t lo = reinterpret_cast<uintptr_t>(best->data);
  const Region* below = nullptr;
  const Region* above = nullptr;
  Neighbours(addr, &below, &above);
  // Within the lower tensor's own mapping (its pattern or back guard page) the write is past its end alone.
  const bool in_below_map = below != nullptr && addr >= reinterpret_cast<uintptr_t>(below->map) &&
                            addr < reinterpret_cast<uintptr_t>(below->map) + below->map_len;
  if (below != nullptr && above != nullptr && !in_below_map) {
    uintptr_t below_lo = reinterpret_cast<uintptr_t>(below->data);
    uintptr_t above_lo = reinterpret_cast<uintptr_t>(above->data);
    return "offset " + std::to_string(addr - below_lo) + " of " + Named(*below) + ", " +
           Bytes(addr - below_lo - below->size + 1) + " past its end, and offset -" +
           std::to_string(above_lo - addr) + " of " + Named(*above) + ", " + Bytes(above_lo - addr) +
           " before its start: after the end of '" + below->name + "', before '" + above->name + "'";
  }
  if (addr < lo) {
    return "offset -" + std::to_string(lo - addr) + " of " + Named(*best) + ", " + Bytes(lo - addr) +
           " before its start";
  }
  uint64_t off = addr - lo;
  if (off >= best->size) {
    return "offset " + std::to_string(off) + " of " + Named(*best) + ", " + Bytes(off - best->size + 1) +
           " past its end";
  }
  return "offset " + std::to_string(off) + " of " + Named(*best);
}

std::string ShortGmRead(uintptr_t addr, uint64_t bytes) {
  std::lock_guard<std::mutex> lock(g_mu);
  for (const auto& entry : g_regions) {
    const Region& r = entry.second;
    const uintptr_t lo = reinterpret_cast<uintptr_t>(r.data);
    if (addr < lo || addr >= lo + r.size) continue;
    const uint64_t have = lo + r.size - addr;
    return have >= bytes ? std::string() : Named(r) + " holds " + Bytes(have) + " from there";
  }
  return std::string();
}

std::string CheckGmGuards() {
  std::lock_guard<std::mutex> lock(g_mu);
  std::string out;
  for (auto& entry : g_regions) {
    Region& r = entry.second;
    int64_t first = 0;
    int64_t last = 0;
    std::string where;
    if (Damaged(r, r.body, r.data, &first, &last)) {
      where = "offsets " + std::to_string(first) + ".." + std::to_string(last) + " (before its start)";
      Fill(r.body, r.data);
    }
    uint8_t* end = AllowedEnd(r);
    if (Damaged(r, end, r.body_end, &first, &last)) {
      where += std::string(where.empty() ? "" : " and ") + "offsets " + std::to_string(first) + ".." +
               std::to_string(last) + " (past its end)";
      Fill(end, r.body_end);
    }
    if (!where.empty()) out += std::string(out.empty() ? "" : "; ") + Named(r) + " written at " + where;
  }
  return out;
}

}  // namespace sk_twin
