// The template arguments of ScaledAdd: the tiling key the host sets is their encoding
// (GET_TPL_TILING_KEY(mode, useRelu)): mode in bit 0, useRelu in bit 1.
#ifndef SCALED_ADD_TILING_KEY_H
#define SCALED_ADD_TILING_KEY_H

#include "ascendc/host_api/tiling/template_argument.h"

#define SCALED_ADD_MODE_ADD 0
#define SCALED_ADD_MODE_SUB 1

ASCENDC_TPL_ARGS_DECL(
    ScaledAdd,
    ASCENDC_TPL_UINT_DECL(mode, ASCENDC_TPL_1_BW, ASCENDC_TPL_UI_LIST, SCALED_ADD_MODE_ADD, SCALED_ADD_MODE_SUB),
    ASCENDC_TPL_BOOL_DECL(useRelu, 0, 1));

ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, SCALED_ADD_MODE_ADD),
        ASCENDC_TPL_BOOL_SEL(useRelu, 0, 1)),
    ASCENDC_TPL_ARGS_SEL(
        ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, SCALED_ADD_MODE_SUB),
        ASCENDC_TPL_BOOL_SEL(useRelu, 1)));

#endif  // SCALED_ADD_TILING_KEY_H
