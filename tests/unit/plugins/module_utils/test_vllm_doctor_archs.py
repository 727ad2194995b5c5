"""vllm_doctor_archs: the architectures a later vLLM serves, read from a release's registry.py."""
import vllm_doctor_archs as A

REGISTRY = '''
_TEXT_GENERATION_MODELS = {
    # decoder-only
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
    "AcmeForCausalLM": (
        "acme",
        "AcmeForCausalLM",
    ),
}

_MULTIMODAL_MODELS = {
    "AcmeVLForConditionalGeneration": ("acme_vl", "AcmeVLForConditionalGeneration"),  # noqa: E501
}

_TRANSFORMERS_SUPPORTED_MODELS = {
    "AcmeOldForCausalLM": ("transformers", "TransformersForCausalLM"),
}

_TRANSFORMERS_BACKEND_MODELS = {
    "TransformersForCausalLM": ("transformers", "TransformersForCausalLM"),
}

_VLLM_MODELS = {
    **_TEXT_GENERATION_MODELS,
    **_MULTIMODAL_MODELS,
}

_PREVIOUSLY_SUPPORTED_MODELS = {
    "AcmeGoneForCausalLM": "0.28.0",
}

_OOT_SUPPORTED_MODELS = {
    "AcmePluginModel": "https://example.invalid/plugin",
}
'''


def test_registry_tables_of_served_architectures_only():
    assert A.registry_architectures(REGISTRY) == [
        "AcmeForCausalLM", "AcmeOldForCausalLM", "AcmeVLForConditionalGeneration", "LlamaForCausalLM"]


def test_the_table_is_a_release_and_its_architectures():
    assert A.RELEASE.count(".") == 2
    assert len(A.ARCHITECTURES) > 300
    for name in ("LlamaForCausalLM", "Qwen3ForCausalLM", "InternVLChatModel", "GlmForCausalLM", "MiniCPMV"):
        assert name in A.ARCHITECTURES, name
    # the Transformers backend's generic classes and the architectures vLLM dropped are not served by name
    for name in ("TransformersForCausalLM", "MPTForCausalLM", "QWenLMHeadModel"):
        assert name not in A.ARCHITECTURES, name


def test_render_table_round_trips():
    names = ["ZedForCausalLM", "AcmeForCausalLM"] + ["Model%03dForCausalLM" % i for i in range(40)]
    text = A.render_table("9.9.9", names, width=60)
    scope = {}
    exec(text, scope)
    assert scope["RELEASE"] == "9.9.9"
    assert sorted(scope["_TABLE"].split()) == sorted(names)
    assert all(len(line) <= 60 for line in scope["_TABLE"].splitlines())


def test_known_architectures_reads_the_refused_names_only():
    line = ("Model architectures ['InternVLChatModel', 'AcmeNoSuchModel'] are not supported for now. Supported "
            "architectures: ['LlamaForCausalLM', 'Qwen2ForCausalLM']")
    assert A.known_architectures(line) == ["InternVLChatModel"]
    assert A.known_architectures("Qwen2_5OmniForConditionalGeneration has no vLLM implementation and the "
                                 "Transformers implementation is not compatible with vLLM") == [
        "Qwen2_5OmniForConditionalGeneration"]
    assert A.known_architectures("Model architectures ['AcmeNoSuchModel'] are not supported for now.") == []


def test_known_architectures_none_for_a_platform_or_a_release_not_older():
    line = "Model architectures ['LlamaForCausalLM'] are not supported for now."
    assert A.known_architectures(line, "0.5.3.post1") == ["LlamaForCausalLM"]
    assert A.known_architectures(line, A.RELEASE) == []
    assert A.known_architectures(line, "99.0.0") == []
    assert A.known_architectures("Model architectures ['LlamaForCausalLM'] are not supported on Neuron for now.") == []
