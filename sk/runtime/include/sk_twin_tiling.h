// sk_twin_tiling.h - the kernel side of Ascend C tiling on the CPU twin.
//
// What CANN's op build generates per operator (facts §17.2) and its
// kernel_utils_macros.h declares, written for a host compiler:
//
//   BEGIN_TILING_DATA_DEF(S) / TILING_DATA_FIELD_DEF(T, f) /
//   TILING_DATA_FIELD_DEF_ARR(T, n, f) / TILING_DATA_FIELD_DEF_STRUCT(S2, f) /
//   END_TILING_DATA_DEF
//        the struct as the kernel sees it: plain fields in declaration order,
//        packed to at most 8 bytes (#pragma pack(push, 8)), zero-initialised;
//   REGISTER_TILING_DATA_CLASS(Op, S) / (Op_<key>, S)
//        host-side registrations; on the twin a no-op (the generated prelude,
//        `sk.twin.opsrc`, turns them into sk_twin::OpTiling specialisations);
//   GET_TILING_DATA(t, tiling)                 t: a copy of the REGISTER_TILING_DEFAULT struct in
//                                              scope, else of the op's registered struct
//   GET_TILING_DATA_WITH_STRUCT(S, t, tiling)  t: a copy of S read from the tiling buffer
//   GET_TILING_DATA_MEMBER(S, member, v, tiling)  v: a copy of one member
//   GET_TILING_DATA_PTR_WITH_STRUCT(S, p, tiling) p: `const S*` onto the tiling buffer
//   COPY_TILING_WITH_STRUCT(S, src, p), COPY_TILING_WITH_ARRAY(T, n, src, p)
//   REGISTER_TILING_DEFAULT(S)  the struct GET_TILING_DATA takes in the rest of the
//        function (a type alias; no code);
//   REGISTER_TILING_FOR_TILINGKEY("expr", S)  a declaration for the op compiler; no code;
//   TILING_KEY_IS(k), TILING_KEY_LIST(k...), TILING_KEY_VAR
//        the kernel is compiled once per key with -DTILING_KEY_VAR=<k>UL, so
//        each branch is a constant (default 0).
//
// GET_TILING_DATA* copy with memcpy: the tiling buffer is GM, possibly not
// aligned for S, and the device copies it too (into a stack struct).
#ifndef SK_TWIN_TILING_H_
#define SK_TWIN_TILING_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <type_traits>

// The runtime's check of a tiling read (sk_twin.h; kernel_tiling.h may come without it).
extern "C" void sk_twin_check_tiling_read(const void* tiling, uint64_t bytes);

#ifndef TILING_KEY_VAR
#define TILING_KEY_VAR 0UL
#endif
#if defined(ASCENDC_TPL_PRE)
// The -E pass sk runs over a CANN operator's kernel (sk.toolflow.cannbuild) reads the keys a kernel
// without template arguments branches on from these markers, as the ADK reads them to compile one
// binary per key; the text is never compiled.
#define TILING_KEY_IS(k) (@@SK_TILING_KEY_IS@@(k))
#define TILING_KEY_LIST(...) (@@SK_TILING_KEY_LIST@@(__VA_ARGS__))
#else
#define TILING_KEY_IS(k) (TILING_KEY_VAR == (k))
#define TILING_KEY_LIST(...) (::sk_twin::TilingKeyIn(TILING_KEY_VAR, {__VA_ARGS__}))
#endif

#define BEGIN_TILING_DATA_DEF(name) \
  _Pragma("pack(push, 8)") struct name {
#define TILING_DATA_FIELD_DEF(type, field) type field = 0;
#define TILING_DATA_FIELD_DEF_ARR(type, count, field) type field[count] = {};
#define TILING_DATA_FIELD_DEF_STRUCT(type, field) type field;
// The static_assert takes the `;` kernels write after END_TILING_DATA_DEF.
#define END_TILING_DATA_DEF \
  };                        \
  _Pragma("pack(pop)") static_assert(true, "")
#define REGISTER_TILING_DATA_CLASS(op_type, struct_name)

// The default struct is also the one GET_TILING_DATA takes. Kernels write the macro in a function body or at
// namespace scope, so it declares (never defines) an overload `S* SkTwinDefaultTiling(S*)` that GET_TILING_DATA
// asks for its return type: a function may be declared in either scope, one in a body hides the outer ones for
// the rest of the block, and at namespace scope it beats the fallback below (an ellipsis) by overload rank.
// (For a struct of an unnamed namespace the declaration has internal linkage: g++ would warn it is never defined.)
#define REGISTER_TILING_DEFAULT(tiling_struct)                                               \
  _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-function\"")   \
      tiling_struct* SkTwinDefaultTiling(tiling_struct*);                                    \
  _Pragma("GCC diagnostic pop") static_assert(true, "")
#define REGISTER_TILING_FOR_TILINGKEY(expression, tiling_struct) \
  static_assert(sizeof(tiling_struct) > 0, "tiling struct " expression)

namespace sk_twin {

inline constexpr bool TilingKeyIn(uint64_t key, std::initializer_list<uint64_t> keys) {
  for (uint64_t k : keys) {
    if (k == key) return true;
  }
  return false;
}

// The op's tiling struct for GET_TILING_DATA (which names none): the prelude
// `sk.twin.opsrc` generates from the op's host tiling definition specialises
// OpTilingForKey<key> (REGISTER_TILING_DATA_CLASS(Op_<key>, S)) and
// OpTilingDefault<0> (REGISTER_TILING_DATA_CLASS(Op, S)).
struct NoOpTiling;
template <uint64_t Key>
struct OpTilingForKey {
  using type = NoOpTiling;
};
template <int Unused>
struct OpTilingDefault {
  using type = NoOpTiling;
};
template <uint64_t Key>
struct OpTiling {
  using keyed = typename OpTilingForKey<Key>::type;
  using type = typename std::conditional<std::is_same<keyed, NoOpTiling>::value,
                                         typename OpTilingDefault<static_cast<int>(Key & 0)>::type, keyed>::type;
  static_assert(!std::is_same<type, NoOpTiling>::value,
                "GET_TILING_DATA(t, tiling) names no struct: the CPU twin takes the op's registered tiling struct "
                "(REGISTER_TILING_DATA_CLASS in op_host) from the prelude sk generates from the op's op_host/ (sk_cann_op "
                "and `python -m sk twin survey` do; by hand: -include it), or use "
                "GET_TILING_DATA_WITH_STRUCT(Struct, t, tiling)");
};

// GET_TILING_DATA's struct: REGISTER_TILING_DEFAULT's in scope, else the op's registered one.
template <typename Registered, uint64_t Key>
struct PickTiling {
  using type = Registered;
};
template <uint64_t Key>
struct PickTiling<NoOpTiling, Key> {
  using type = typename OpTiling<Key>::type;
};

template <typename T>
inline T ReadTiling(const void* tiling) {
  static_assert(std::is_trivially_copyable<T>::value, "a tiling struct is plain data");
  // A tiling buffer shorter than the struct (a hand-written tiling file, say) would hand the kernel
  // the bytes after it: refused, naming both sizes.
  sk_twin_check_tiling_read(tiling, sizeof(T));
  T out;
  std::memcpy(static_cast<void*>(&out), tiling, sizeof(T));
  return out;
}

}  // namespace sk_twin

// No REGISTER_TILING_DEFAULT in scope.
::sk_twin::NoOpTiling* SkTwinDefaultTiling(...);
#define SK_TWIN_DEFAULT_TILING_TYPE typename ::std::remove_pointer<decltype(SkTwinDefaultTiling(nullptr))>::type

#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \
  tiling_struct tiling_data = ::sk_twin::ReadTiling<tiling_struct>(tiling_arg)
#define GET_TILING_DATA(tiling_data, tiling_arg)                                                  \
  typename ::sk_twin::PickTiling<SK_TWIN_DEFAULT_TILING_TYPE, TILING_KEY_VAR>::type tiling_data = \
      ::sk_twin::ReadTiling<typename ::sk_twin::PickTiling<SK_TWIN_DEFAULT_TILING_TYPE, TILING_KEY_VAR>::type>(tiling_arg)
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling_arg)                     \
  decltype(tiling_type::member) var;                                                    \
  std::memcpy(static_cast<void*>(&var),                                                 \
              reinterpret_cast<const uint8_t*>(tiling_arg) + offsetof(tiling_type, member), sizeof(var))
// The tiling buffer is read-only to the kernel.
#define __tiling_data_ptr__ const
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \
  __tiling_data_ptr__ tiling_struct* dst_ptr = reinterpret_cast<const tiling_struct*>(tiling_ptr)
#define COPY_TILING_WITH_STRUCT(tiling_struct, src_ptr, dst_ptr)                              \
  const tiling_struct sk_twin_copy_##dst_ptr = ::sk_twin::ReadTiling<tiling_struct>(src_ptr); \
  const tiling_struct* dst_ptr = &sk_twin_copy_##dst_ptr
#define COPY_TILING_WITH_ARRAY(arr_type, arr_count, src_ptr, dst_ptr)                \
  struct sk_twin_arr_##dst_ptr {                                                    \
    arr_type v[arr_count];                                                          \
  };                                                                                \
  const sk_twin_arr_##dst_ptr sk_twin_copy_##dst_ptr =                              \
      ::sk_twin::ReadTiling<sk_twin_arr_##dst_ptr>(src_ptr);                        \
  const arr_type(*dst_ptr)[arr_count] = &sk_twin_copy_##dst_ptr.v

#endif  // SK_TWIN_TILING_H_
