// kernel_operator_list_tensor_intf.h on the CPU twin: ListTensorDesc and
// TensorDesc<T>, the kernel's view of a tensor list in GM (a dynamic input).
//
// The layout (uint64 words from the list's address): word 0 is the byte
// offset from there to the array of data pointers; then one descriptor per
// tensor: a word holding dim (low 32 bits) and the tensor's index (high 32
// bits), then dim shape words; a list of bare pointers has dim 0 and one
// filler word 0xffffffff per descriptor. The count is the first descriptor's
// high word when non-zero, else the last descriptor's index + 1.
// Out-of-range indices and malformed lists fail the launch with a message.
#ifndef SK_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H_
#define SK_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H_

#include <cstdint>
#include <cstring>

#include "kernel_operator.h"

namespace AscendC {

namespace sk_list {
inline uint64_t Word(const uint64_t* base, uint64_t i) {
  uint64_t v;
  std::memcpy(&v, base + i, sizeof v);
  return v;
}
// A message built without the C++ library (kernel objects reference only the runtime's hooks).
struct Msg {
  char text[320] = {};
  unsigned n = 0;
  Msg& operator<<(const char* s) {
    while (*s && n + 1 < sizeof text) text[n++] = *s++;
    return *this;
  }
  Msg& operator<<(uint64_t v) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v);
    while (k && n + 1 < sizeof text) text[n++] = digits[--k];
    return *this;
  }
};
[[noreturn]] inline void Fail(const Msg& m) {
  ::sk_twin_fail(m.text);
  __builtin_unreachable();
}
}  // namespace sk_list

template <class T>
class TensorDesc {
 public:
  TensorDesc() = default;
  void SetDim(uint32_t dim) { dim_ = dim; }
  void SetIndex(uint32_t index) { index_ = index; }
  void SetShapeAddr(uint64_t* shape) { shape_ = shape; }
  void SetDataPtr(__gm__ T* ptr) { ptr_ = ptr; }
  uint64_t GetDim() const { return dim_; }
  uint64_t GetIndex() const { return index_; }
  uint64_t* GetShapeAddr() const { return shape_; }
  uint64_t GetShape(uint32_t i) const {
    if (i >= dim_ || shape_ == nullptr) {
      sk_list::Fail(sk_list::Msg() << "TensorDesc::GetShape: dimension " << uint64_t{i} << " of a "
                                   << uint64_t{dim_} << "-dimensional tensor (or no SetShapeAddr)");
    }
    return shape_[i];
  }
  __gm__ T* GetDataPtr() const { return ptr_; }
  // The tensor as a GlobalTensor of shape-product elements.
  GlobalTensor<T> GetDataObj() const {
    uint64_t n = 1;
    for (uint32_t i = 0; i < dim_; ++i) n *= GetShape(i);
    GlobalTensor<T> g;
    g.SetGlobalBuffer(ptr_, n);
    return g;
  }

 private:
  uint32_t dim_ = 0;
  uint32_t index_ = 0;
  uint64_t* shape_ = nullptr;
  __gm__ T* ptr_ = nullptr;
};

class ListTensorDesc {
 public:
  ListTensorDesc() = default;
  ListTensorDesc(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    Init(data, length, shapeSize);
  }
  // length (bytes of the list) and shapeSize (tensor count) are checked when both are given.
  void Init(__gm__ void* data, uint32_t length = 0xffffffff, uint32_t shapeSize = 0xffffffff) {
    if (data == nullptr) sk_list::Fail(sk_list::Msg() << "ListTensorDesc::Init: the list's address is null");
    head_ = static_cast<const uint64_t*>(data);
    const uint64_t ptr_offset = sk_list::Word(head_, 0);
    if (ptr_offset % 8 != 0 || ptr_offset < 16) {
      sk_list::Fail(sk_list::Msg() << "ListTensorDesc::Init: word 0 (the offset of the data pointers) is "
                                   << ptr_offset << "; a multiple of 8, at least 16");
    }
    ptrs_ = ptr_offset / 8;
    const uint64_t first = sk_list::Word(head_, 1);
    dim_ = static_cast<uint32_t>(first & 0xffffffffu);
    desc_words_ = dim_ == 0 ? 2 : 1 + dim_;
    const uint32_t high = static_cast<uint32_t>(first >> 32);
    count_ = high != 0 ? high : static_cast<uint32_t>(sk_list::Word(head_, ptrs_ - desc_words_) >> 32) + 1;
    if (1 + uint64_t{count_} * desc_words_ != ptrs_) {
      sk_list::Fail(sk_list::Msg() << "ListTensorDesc::Init: " << uint64_t{count_} << " descriptors of "
                                   << uint64_t{desc_words_} << " words do not end at word " << ptrs_
                                   << ", where the data pointers start");
    }
    if (length != 0xffffffffu && shapeSize != 0xffffffffu &&
        (count_ != shapeSize || length != ptr_offset + uint64_t{count_} * 8)) {
      sk_list::Fail(sk_list::Msg() << "ListTensorDesc::Init: the list holds " << uint64_t{count_} << " tensors in "
                                   << ptr_offset + uint64_t{count_} * 8 << " bytes; the call says "
                                   << uint64_t{shapeSize} << " in " << uint64_t{length});
    }
  }
  // dim, index, data pointer and (into desc's SetShapeAddr buffer) the shape of tensor index.
  template <class T>
  void GetDesc(TensorDesc<T>& desc, uint32_t index) {
    Check(index, "ListTensorDesc::GetDesc");
    if (dim_ == 0) sk_list::Fail(sk_list::Msg() << "ListTensorDesc::GetDesc: the list holds data pointers only (dim 0)");
    if (desc.GetShapeAddr() == nullptr) {
      sk_list::Fail(sk_list::Msg() << "ListTensorDesc::GetDesc: call SetShapeAddr on desc first");
    }
    desc.SetDim(dim_);
    desc.SetIndex(index);
    desc.SetDataPtr(GetDataPtr<T>(index));
    const uint64_t at = 1 + uint64_t{index} * desc_words_ + 1;
    for (uint32_t i = 0; i < dim_; ++i) desc.GetShapeAddr()[i] = sk_list::Word(head_, at + i);
  }
  template <class T>
  __gm__ T* GetDataPtr(uint32_t index) {
    Check(index, "ListTensorDesc::GetDataPtr");
    return reinterpret_cast<__gm__ T*>(sk_list::Word(head_, ptrs_ + index));
  }
  uint32_t GetSize() const { return count_; }

 private:
  void Check(uint32_t index, const char* call) const {
    if (head_ == nullptr) sk_list::Fail(sk_list::Msg() << call << ": the ListTensorDesc was never Init-ed");
    if (index >= count_) {
      sk_list::Fail(sk_list::Msg() << call << ": index " << uint64_t{index} << " of a list of " << uint64_t{count_}
                                   << " tensors");
    }
  }
  const uint64_t* head_ = nullptr;
  uint64_t ptrs_ = 0;
  uint32_t dim_ = 0;
  uint32_t desc_words_ = 0;
  uint32_t count_ = 0;
};

}  // namespace AscendC

#endif  // SK_TWIN_KERNEL_OPERATOR_LIST_TENSOR_INTF_H_
