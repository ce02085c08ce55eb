// The twin's ascendc/host_api/tiling/template_argument.h: the ASCENDC_TPL_* macros an operator's
// <op>_tiling_key.h uses (docs/cann-ops.md, facts section 17).
//
// Three modes, as the ADK's header has them:
// * ASCENDC_TPL_PRE: the `-E` pass sk runs over the kernel source turns ASCENDC_TPL_ARGS_DECL and
//   ASCENDC_TPL_SEL into `@@NAME@@ = {values}` markers that sk/engine/cannop.py reads (declared
//   arguments, bit widths, selected combinations);
// * ASCENDC_TPL_KERNEL (every compile of a template kernel): the declarations vanish; the kernel is
//   a template instantiated by sk's generated entry with the combination's values (a DATATYPE
//   argument as TypeFromId<ge::DataType number>::type);
// * otherwise (host code): the declarations vanish too, and GET_TPL_TILING_KEY encodes a key from
//   the declared widths with a constexpr encoder, for host tiling code compiled with the twin.
#ifndef SK_TWIN_TEMPLATE_ARGUMENT_H_
#define SK_TWIN_TEMPLATE_ARGUMENT_H_

#include <cstdint>
#include <initializer_list>

// Kernel-type selections (values of ASCENDC_TPL_KERNEL_TYPE_SEL).
#define ASCENDC_TPL_AIV_ONLY 0
#define ASCENDC_TPL_AIC_ONLY 1
#define ASCENDC_TPL_MIX_AIV_1_0 4
#define ASCENDC_TPL_MIX_AIC_1_0 5
#define ASCENDC_TPL_MIX_AIC_1_1 6
#define ASCENDC_TPL_MIX_AIC_1_2 7
#define ASCENDC_TPL_AICORE 8
#define ASCENDC_TPL_VECTORCORE 9
#define ASCENDC_TPL_MIX_AICORE 10
#define ASCENDC_TPL_MIX_VECTOR_CORE 11
#define ASCENDC_TPL_MAX 12
// Bit widths a UINT declaration may name.
#define ASCENDC_TPL_1_BW 1
#define ASCENDC_TPL_2_BW 2
#define ASCENDC_TPL_4_BW 4
#define ASCENDC_TPL_8_BW 8
// How a UINT declaration lists its values: ranges (count, then lo/hi pairs), a list, or ranges then a list.
#define ASCENDC_TPL_UI_RANGE 0
#define ASCENDC_TPL_UI_LIST 1
#define ASCENDC_TPL_UI_MIX 2
// A DTYPE/FORMAT argument may name a parameter's type by position.
#define ASCENDC_TPL_INPUT_BIAS 100000000
#define ASCENDC_TPL_OUTPUT_BIAS 900000000
#define ASCENDC_TPL_INPUT(x) (ASCENDC_TPL_INPUT_BIAS + (x))
#define ASCENDC_TPL_OUTPUT(x) (ASCENDC_TPL_OUTPUT_BIAS + (x))

#if defined(ASCENDC_TPL_PRE)

#define ASCENDC_TPL_DTYPE_DECL(x, ...) @@ASCENDC_TPL_DTYPE_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) @@ASCENDC_TPL_DATATYPE_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_FORMAT_DECL(x, ...) @@ASCENDC_TPL_FORMAT_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_UINT_DECL(x, ...) @@ASCENDC_TPL_UINT_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_BOOL_DECL(x, ...) @@ASCENDC_TPL_BOOL_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) @@ASCENDC_TPL_SHARED_KERNEL_TYPE_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_DTYPE_SEL(x, ...) @@ASCENDC_TPL_DTYPE_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_DATATYPE_SEL(x, ...) @@ASCENDC_TPL_DATATYPE_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_FORMAT_SEL(x, ...) @@ASCENDC_TPL_FORMAT_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_UINT_SEL(x, ...) @@ASCENDC_TPL_UINT_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_BOOL_SEL(x, ...) @@ASCENDC_TPL_BOOL_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_TILING_STRUCT_SEL(x, ...) @@ASCENDC_TPL_TILING_STRUCT_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...) @@ASCENDC_TPL_KERNEL_TYPE_SEL@@ = {__VA_ARGS__}
#define ASCENDC_TPL_DETERMINISTIC_SEL(...) @@ASCENDC_TPL_DETERMINISTIC_SEL@@ = {__VA_ARGS__}
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(x, ...) @@ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_ARGS_DECL(x, ...) @@ASCENDC_TPL_ARGS_DECL_##x@@ = {__VA_ARGS__}
#define ASCENDC_TPL_ARGS_SEL(...) @@{__VA_ARGS__}
#define ASCENDC_TPL_SEL(...) @@ASCENDC_TPL_LISTS@@ = {__VA_ARGS__}

#else

#define ASCENDC_TPL_DTYPE_DECL(...)
#define ASCENDC_TPL_DATATYPE_DECL(...)
#define ASCENDC_TPL_FORMAT_DECL(...)
#define ASCENDC_TPL_BOOL_DECL(...)
#define ASCENDC_TPL_KERNEL_TYPE_DECL(...)
#define ASCENDC_TPL_DTYPE_SEL(...)
#define ASCENDC_TPL_DATATYPE_SEL(...)
#define ASCENDC_TPL_FORMAT_SEL(...)
#define ASCENDC_TPL_UINT_SEL(...)
#define ASCENDC_TPL_BOOL_SEL(...)
#define ASCENDC_TPL_TILING_STRUCT_SEL(...)
#define ASCENDC_TPL_KERNEL_TYPE_SEL(...)
#define ASCENDC_TPL_DETERMINISTIC_SEL(...)
#define ASCENDC_TPL_SHARED_KERNEL_TYPE_SEL(...)
#define ASCENDC_TPL_ARGS_SEL(...)
#define ASCENDC_TPL_SEL(...)

#if defined(ASCENDC_TPL_KERNEL)
#define ASCENDC_TPL_UINT_DECL(...)
#define ASCENDC_TPL_ARGS_DECL(...)
// A DATATYPE argument is instantiated as the type of its ge::DataType number (the ADK's generated
// TEMPLATE_PARAMS name `TypeFromId<n>::type`).
#include "kernel_operator.h"
template <int dataTypeId>
struct TypeFromId {
    using type = void;
};
#define SK_TWIN_TPL_TYPE_FROM_ID(id, t) \
    template <>                         \
    struct TypeFromId<id> {             \
        using type = t;                 \
    }
SK_TWIN_TPL_TYPE_FROM_ID(0, float);
SK_TWIN_TPL_TYPE_FROM_ID(1, half);
SK_TWIN_TPL_TYPE_FROM_ID(2, int8_t);
SK_TWIN_TPL_TYPE_FROM_ID(3, int32_t);
SK_TWIN_TPL_TYPE_FROM_ID(4, uint8_t);
SK_TWIN_TPL_TYPE_FROM_ID(6, int16_t);
SK_TWIN_TPL_TYPE_FROM_ID(7, uint16_t);
SK_TWIN_TPL_TYPE_FROM_ID(8, uint32_t);
SK_TWIN_TPL_TYPE_FROM_ID(9, int64_t);
SK_TWIN_TPL_TYPE_FROM_ID(10, uint64_t);
SK_TWIN_TPL_TYPE_FROM_ID(11, double);
SK_TWIN_TPL_TYPE_FROM_ID(12, bool);
SK_TWIN_TPL_TYPE_FROM_ID(27, bfloat16_t);
#undef SK_TWIN_TPL_TYPE_FROM_ID
#else
// Host side: each declaration becomes {kind, bit width, values...}; GET_TPL_TILING_KEY(args...) packs
// the arguments in declaration order, first lowest, a UINT argument as its index in the declared list.
namespace sk_twin_tpl {
struct Decl {
    int kind;  // 0 dtype/format/kernel type (value as is), 1 uint (index in vals), 2 bool
    int bits;
    uint64_t vals[64];
    int count;
};
inline Decl MakeUint(int bits, std::initializer_list<uint64_t> spec)
{
    Decl d{1, bits, {}, 0};
    const uint64_t* v = spec.begin();
    const int n = static_cast<int>(spec.size());
    if (n < 1) return d;
    if (v[0] == ASCENDC_TPL_UI_LIST) {
        for (int i = 1; i < n && d.count < 64; ++i) d.vals[d.count++] = v[i];
        return d;
    }
    const int ranges = n > 1 ? static_cast<int>(v[1]) : 0;
    for (int r = 0; r < ranges && 3 + 2 * r < n; ++r)
        for (uint64_t x = v[2 + 2 * r]; x <= v[3 + 2 * r] && d.count < 64; ++x) d.vals[d.count++] = x;
    if (v[0] == ASCENDC_TPL_UI_MIX)
        for (int i = 2 + 2 * ranges; i < n && d.count < 64; ++i) d.vals[d.count++] = v[i];
    return d;
}
inline Decl MakeFixed(int kind, int bits) { return Decl{kind, bits, {}, 0}; }
inline uint64_t Encode(std::initializer_list<Decl> decls, std::initializer_list<uint64_t> args)
{
    uint64_t key = 0;
    int shift = 0;
    const uint64_t* a = args.begin();
    int i = 0;
    for (const Decl& d : decls) {
        if (i >= static_cast<int>(args.size())) break;
        uint64_t v = a[i++];
        if (d.kind == 1) {
            int idx = -1;
            for (int j = 0; j < d.count; ++j)
                if (d.vals[j] == v) idx = j;
            if (idx < 0) return ~0ULL;  // the ADK's INVALID_TILING_KEY
            v = static_cast<uint64_t>(idx);
        }
        key |= v << shift;
        shift += d.bits;
    }
    return shift > 64 ? ~0ULL : key;
}
}  // namespace sk_twin_tpl
#undef ASCENDC_TPL_DTYPE_DECL
#undef ASCENDC_TPL_DATATYPE_DECL
#undef ASCENDC_TPL_FORMAT_DECL
#undef ASCENDC_TPL_BOOL_DECL
#undef ASCENDC_TPL_KERNEL_TYPE_DECL
#define ASCENDC_TPL_DTYPE_DECL(x, ...) ::sk_twin_tpl::MakeFixed(0, 8)
#define ASCENDC_TPL_DATATYPE_DECL(x, ...) ::sk_twin_tpl::MakeFixed(0, 8)
#define ASCENDC_TPL_FORMAT_DECL(x, ...) ::sk_twin_tpl::MakeFixed(0, 8)
#define ASCENDC_TPL_BOOL_DECL(x, ...) ::sk_twin_tpl::MakeFixed(2, 1)
#define ASCENDC_TPL_KERNEL_TYPE_DECL(x, ...) ::sk_twin_tpl::MakeFixed(0, 8)
#define ASCENDC_TPL_UINT_DECL(x, bw, ...) ::sk_twin_tpl::MakeUint(bw, {__VA_ARGS__})
#define ASCENDC_TPL_ARGS_DECL(x, ...) \
    static inline uint64_t SkTwinTplEncode(std::initializer_list<uint64_t> sk_args) \
    { return ::sk_twin_tpl::Encode({__VA_ARGS__}, sk_args); }
#define GET_TPL_TILING_KEY(...) SkTwinTplEncode({__VA_ARGS__})
#endif

#endif  // ASCENDC_TPL_PRE

#endif  // SK_TWIN_TEMPLATE_ARGUMENT_H_
