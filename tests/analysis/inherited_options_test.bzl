"""Unit tests of the inherited-options projection."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//rules/private:inherited_options.bzl", "inherited_options")

def _projection_test(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, "", inherited_options(""))
    asserts.equals(env, "", inherited_options("profiling=1:debug-sync-all=1"))
    # stream-fusion turns the sub-kernels' early-start macros off; dcci-* lists drop the dcci macro.
    asserts.equals(env, "stream-fusion=1", inherited_options("stream-fusion=1:profiling=1"))
    asserts.equals(env, "split-mode=1:dcci-disable-on-kernel=Add, Mul", inherited_options("dcci-disable-on-kernel=Add, Mul:split-mode=1"))
    asserts.equals(env, "feed-sync-all=1:split-mode=4", inherited_options("split-mode=4: profiling=1 :feed-sync-all = 1"))
    asserts.equals(env, "early-start=0", inherited_options('"compile-options=-g:early-start=0:"'))
    # Same inherited keys, different other options: same configuration.
    asserts.equals(env, inherited_options("split-mode=2:debug-sync-all=1"), inherited_options("split-mode=2"))
    return unittest.end(env)

projection_test = unittest.make(_projection_test)

def inherited_options_test_suite(name):
    unittest.suite(name, projection_test)
