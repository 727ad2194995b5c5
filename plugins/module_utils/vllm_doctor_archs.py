# -*- coding: utf-8 -*-
"""The model architectures vLLM serves, in the newest release this project knows.

One part of the doctor (``vllm_doctor.py`` is the entry): a log where vLLM refuses an architecture
("Model architectures ['X'] are not supported for now") reads differently when a later vLLM has X:
then the installed release predates the model (``vllm_too_old_for_model``: move vllm_install_version),
not a model vLLM cannot serve (``architecture_unsupported``). The table below is data, written by
``scripts/doctor-archs`` from a release's ``vllm/model_executor/models/registry.py`` with
``registry_architectures`` (its model tables: vLLM's own classes and the architectures it maps to its
Transformers backend; not that backend's generic classes, the out-of-tree plugins' or the removed ones).
"""
from __future__ import absolute_import, division, print_function

import re

try:  # in the collection: module_utils import each other relatively
    from .vllm_doctor_text import _version_tuple
except ImportError:  # copied beside the launcher, or scripts/doctor: the parts lie side by side
    from vllm_doctor_text import _version_tuple

__metaclass__ = type

# --- written by scripts/doctor-archs; edit with it, not by hand ---
RELEASE = "0.33.0"
_TABLE = """
AXK1ForCausalLM AfmoeForCausalLM AliceAIForCausalLM Alpamayo2Super ApertusForCausalLM
ArceeForCausalLM AriaForConditionalGeneration AudioFlamingo3ForConditionalGeneration
BagelForConditionalGeneration BailingMoeForCausalLM BailingMoeV25MTPModel BailingMoeV2ForCausalLM
BailingMoeV2_5ForCausalLM BailingMoeV3ForCausalLM BailingMoeV3MTPModel
BailingMoeV3VLForConditionalGeneration BeamForCausalLM BeeForConditionalGeneration BertForMaskedLM
BertForSequenceClassification BertForTokenClassification BertModel BertSpladeSparseEmbeddingModel
BgeM3EmbeddingModel Blip2ForConditionalGeneration BloomForCausalLM CLIPModel
ChatGLMForConditionalGeneration ChatGLMModel ClefFlashForJointSchema ClefOmniForJointSchema
Cohere2ForCausalLM Cohere2MoeForCausalLM Cohere2VisionForConditionalGeneration
CohereAsrForConditionalGeneration CohereCompassForConditionalGeneration CohereForCausalLM
ColBERTJinaRobertaModel ColBERTLfm2Model ColBERTModernBertModel ColModernVBertForRetrieval
ColPaliForRetrieval ColQwen3 ColQwen3_5 ColUltraVBertForRetrieval
Cosmos3EdgeForConditionalGeneration Cosmos3ForConditionalGeneration CwmForCausalLM
D3ForSequenceClassification DFlash2BeamDraftModel DFlash2DraftModel DFlashDraftModel
DFlashLagunaForCausalLM DFlashMuseGlimmerAssistantModel DFlashQwen3XPressModel DSparkDraftModel
DSparkV41DraftModel DbrxForCausalLM DeciLMForCausalLM DeepSeekMTPModel DeepSeekV4MTPModel
DeepseekForCausalLM DeepseekOCR2ForCausalLM DeepseekOCRForCausalLM DeepseekV2ForCausalLM
DeepseekV32ForCausalLM DeepseekV32MTPModel DeepseekV3BidirectionalModel DeepseekV3ForCausalLM
DeepseekV41ForCausalLM DeepseekV4ForCausalLM DeepseekV4ForConditionalGeneration
DeepseekVLV2ForCausalLM DiffusionGemmaForBlockDiffusion DomynEdgeForCausalLM DoryForCausalLM
Dots3NoteForCausalLM Dots3NoteMTPModel DotsOCRForCausalLM Eagle2_5_VLForConditionalGeneration
Eagle3DeepseekV2ForCausalLM Eagle3DeepseekV3ForCausalLM Eagle3LlamaForCausalLM
Eagle3MiniMaxM2ForCausalLM Eagle3Qwen2_5vlForCausalLM Eagle3Qwen3ForCausalLM
Eagle3Qwen3vlForCausalLM EagleCohereForCausalLM EagleDeepSeekMTPModel EagleLlama4ForCausalLM
EagleLlamaForCausalLM EagleMiniCPMForCausalLM EagleMistralForCausalLM EagleMistralLarge3ForCausalLM
EmbeddingGemma2Model Emu3ForConditionalGeneration Ernie4_5ForCausalLM Ernie4_5_MoeForCausalLM
Ernie4_5_VLMoeForConditionalGeneration ErnieMTPModel Exaone4ForCausalLM
Exaone4_5_ForConditionalGeneration Exaone4_5_MTP ExaoneForCausalLM ExaoneMoEForCausalLM
ExaoneMoeForCausalLM ExaoneMoeMTP ExtractHiddenStatesModel FalconForCausalLM FalconH1ForCausalLM
FalconMambaForCausalLM FireRedASR2ForConditionalGeneration FlexOlmoForCausalLM FlintForCausalLM
FunASRForConditionalGeneration FunAudioChatForConditionalGeneration GLM4VForCausalLM
GPT2ForSequenceClassification GPT2LMHeadModel GPTBigCodeForCausalLM GPTJForCausalLM
GPTNeoXForCausalLM Gemma2ForCausalLM Gemma2Model Gemma3ForCausalLM Gemma3ForConditionalGeneration
Gemma3TextModel Gemma3nForCausalLM Gemma3nForConditionalGeneration Gemma4DSparkModel
Gemma4ForCausalLM Gemma4ForConditionalGeneration Gemma4MTPModel
Gemma4UnifiedForConditionalGeneration GemmaForCausalLM Glm4ForCausalLM Glm4MoeForCausalLM
Glm4MoeLiteForCausalLM Glm4MoeLiteMTPModel Glm4MoeMTPModel Glm4vForConditionalGeneration
Glm4vMoeForConditionalGeneration Glm5NextForCausalLM Glm5NextForConditionalGeneration
Glm5NextMTPModel GlmAsrForConditionalGeneration GlmForCausalLM GlmMoeDsaForCausalLM
GlmOcrForConditionalGeneration GlmOcrMTPModel GptOssForCausalLM
Granite4VisionForConditionalGeneration GraniteForCausalLM GraniteMoeForCausalLM
GraniteMoeHybridForCausalLM GraniteMoeSWAForCausalLM GraniteMoeSharedForCausalLM
GraniteSWAForCausalLM GraniteSpeechForConditionalGeneration
GraniteSpeechPlusForConditionalGeneration GteModel GteNewForSequenceClassification GteNewModel
H2OVLChatModel HCXVisionV2ForCausalLM HF_ColBERT HYV3ForCausalLM HYV3MTPModel HYV4ForCausalLM
HYV4MTPModel HfMoondream HrmTextForCausalLM HunYuanDenseV1ForCausalLM HunYuanMoEV1ForCausalLM
HunYuanVLForConditionalGeneration HyperCLOVAXForCausalLM IQuestCoderForCausalLM
IQuestLoopCoderForCausalLM Idefics3ForConditionalGeneration InklingForCausalLM
InklingForConditionalGeneration InklingMTPModel InternLM2ForCausalLM InternLM2ForRewardModel
InternLM3ForCausalLM InternS1ForConditionalGeneration InternS1ProForConditionalGeneration
InternS2MobiusForConditionalGeneration InternS2MobiusMTP InternS2PreviewForConditionalGeneration
InternVLChatModel InternVLForConditionalGeneration IsaacForConditionalGeneration Jais2ForCausalLM
JambaForCausalLM JambaForSequenceClassification JinaEmbeddingsV5Model JinaForRanking
JinaVLForRanking K2HorizonForCausalLM K3DSparkModel KananaVForConditionalGeneration
KeyeForConditionalGeneration KeyeVL1_5ForConditionalGeneration KimiK25ForConditionalGeneration
KimiK3ForConditionalGeneration KimiK3MTPModel KimiLinearForCausalLM KimiVLForConditionalGeneration
Kolibri1ForCausalLM LLaMAForCausalLM LagunaForCausalLM Lfm2BidirectionalModel Lfm2ForCausalLM
Lfm2MoeForCausalLM Lfm2VlForConditionalGeneration LiLiCorrDraftModel
LightOnOCRForConditionalGeneration Llama4ForCausalLM Llama4ForConditionalGeneration
LlamaBidirectionalForSequenceClassification LlamaBidirectionalModel LlamaForCausalLM
LlamaForCausalLMEagle3 LlamaModel LlamaNemotronVLForSequenceClassification LlamaNemotronVLModel
Llama_Nemotron_Nano_VL LlavaForConditionalGeneration LlavaNextForConditionalGeneration
LlavaNextVideoForConditionalGeneration LlavaOnevision2ForConditionalGeneration
LlavaOnevisionForConditionalGeneration LongCatFlashMTPModel LongcatFlashForCausalLM
LongcatFlashNgramForCausalLM Mamba2ForCausalLM MambaForCausalLM MellumForCausalLM MiDashengLMModel
MiMoForCausalLM MiMoMTPModel MiMoV2FlashForCausalLM MiMoV2ForCausalLM MiMoV2MTPModel
MiMoV2OmniForCausalLM MiMoV2OmniMTPModel MiniCPM3ForCausalLM MiniCPMForCausalLM MiniCPMO
MiniCPMOcrForConditionalGeneration MiniCPMV MiniCPMV4_6ForConditionalGeneration
MiniCPMV4_7ForConditionalGeneration MiniMaxM2ForCausalLM MiniMaxM3MTP MiniMaxM3SparseForCausalLM
MiniMaxM3SparseForConditionalGeneration Ministral3ForCausalLM Mistral3ForConditionalGeneration
MistralForCausalLM MistralLarge3ForCausalLM MistralModel MixtralForCausalLM
ModernBertForSequenceClassification ModernBertForTokenClassification ModernBertModel
ModernVBertModel Molmo2ForConditionalGeneration MolmoForCausalLM Moondream3ForCausalLM
MoonshotKimiaForCausalLM MossAudioModel MossTranscribeDiarizeForConditionalGeneration
MuseGlimmerAssistantModel MuseGlimmerForCausalLM MuseGlimmerForConditionalGeneration
MuseSparkDSparkModel MuseSparkForConditionalGeneration NVLM_D NanbeigeForCausalLM
NemotronForCausalLM NemotronHForCausalLM NemotronHMTPModel NemotronHPuzzleForCausalLM
NemotronH_Nano_Omni_Reasoning_V3 NemotronH_Nano_VL_V2 NemotronH_Omni_Reasoning_V3
NemotronH_Super_Omni_Reasoning_V3 NemotronParseForConditionalGeneration NomicBertModel
OPTForCausalLM Olmo2ForCausalLM Olmo3ForCausalLM OlmoForCausalLM OlmoHybridForCausalLM
OlmoeForCausalLM OpenAIPrivacyFilterForTokenClassification OpenCUAForConditionalGeneration
OpenPanguMTPModel OpenPanguVLForConditionalGeneration OpenVLAForActionPrediction OpsColQwen3Model
OrionForCausalLM Ovis Ovis2_5 Ovis2_6ForCausalLM Ovis2_6_MoeForCausalLM PEagleDraftModel
PaddleOCRVLForConditionalGeneration PaliGemmaForConditionalGeneration PanguEmbeddedForCausalLM
PanguProMoEV2ForCausalLM PanguUltraMoEForCausalLM Param2MoEForCausalLM ParseAuxMTPModel
PeagleLlamaForCausalLM PeagleQwen3ForCausalLM Phi3ForCausalLM Phi3VForCausalLM Phi4ForCausalLMV
Phi4MMForCausalLM PhiForCausalLM PhiMoEForCausalLM PixtralForConditionalGeneration Plamo3ForCausalLM
QianfanOCRForConditionalGeneration Qwen2AudioForConditionalGeneration Qwen2ForCausalLM
Qwen2ForProcessRewardModel Qwen2ForRewardModel Qwen2Model Qwen2MoeForCausalLM
Qwen2VLForConditionalGeneration Qwen2_5OmniForConditionalGeneration Qwen2_5OmniModel
Qwen2_5_VLForConditionalGeneration Qwen3ASRForConditionalGeneration
Qwen3ASRForcedAlignerForTokenClassification Qwen3ASRRealtimeGeneration Qwen3DSparkModel
Qwen3ForCausalLM Qwen3MoeForCausalLM Qwen3NextForCausalLM Qwen3NextMTP Qwen3OmniDSparkModel
Qwen3OmniMoeForConditionalGeneration Qwen3VLForConditionalGeneration
Qwen3VLMoeForConditionalGeneration Qwen3VLNemotronEmbedModel Qwen3XPressModel Qwen3_5ForCausalLM
Qwen3_5ForConditionalGeneration Qwen3_5MTP Qwen3_5MoeForCausalLM Qwen3_5MoeForConditionalGeneration
Qwen3_5MoeMTP Qwen4ExpForCausalLM Qwen4ExpForConditionalGeneration Qwen4ExpMTP
RForConditionalGeneration RadioMBartPrefixForCausalLM Rnj1ForCausalLM RobertaForMaskedLM
RobertaForSequenceClassification RobertaForTokenClassification RobertaModel SarvamMLAForCausalLM
SarvamMoEForCausalLM SeedOssForCausalLM SiglipModel SkyworkR1VChatModel SmolLM3ForCausalLM
SmolVLMForConditionalGeneration SolarForCausalLM StableLmForCausalLM Starcoder2ForCausalLM
Step1ForCausalLM Step3TextForCausalLM Step3VLForConditionalGeneration Step3p5ForCausalLM Step3p5MTP
Step3p7ForConditionalGeneration Step5ForCausalLM Step5ForConditionalGeneration Step5MTP
StepVLForConditionalGeneration TeleChat2ForCausalLM TeleChat3ForCausalLM TeleFLMForCausalLM
Terratorch UltravoxModel UnlimitedOCRForCausalLM VaultGemmaForCausalLM
VibeVoiceAsrForConditionalGeneration VoxtralForConditionalGeneration VoxtralRealtimeGeneration
VoyageQwen3BidirectionalEmbedModel WhisperForConditionalGeneration
XLMRobertaForSequenceClassification XLMRobertaForTokenClassification XLMRobertaModel
Zamba2ForCausalLM
"""
# --- end of the written part ---

ARCHITECTURES = frozenset(_TABLE.split())

_DICT_START_RE = re.compile(r"^(_[A-Z0-9_]*MODELS)\s*(?::[^=]*)?=\s*\{\s*$")
_KEY_RE = re.compile(r"^\s+[\"'](\w+)[\"']\s*:")
# model tables of architectures vLLM does not serve by name: the Transformers backend's generic classes,
# the removed architectures (with the release that dropped them) and the out-of-tree plugins'
_NOT_OWN = ("TRANSFORMERS_BACKEND", "PREVIOUSLY", "OOT")


def registry_architectures(source):
    """The sorted architecture names of a vLLM registry.py's model tables (``_*_MODELS = {...}``)."""
    names, table = set(), None
    for line in source.splitlines():
        if table is None:
            start = _DICT_START_RE.match(line)
            if start and not any(word in start.group(1) for word in _NOT_OWN):
                table = start.group(1)
            continue
        if line.startswith("}"):
            table = None
            continue
        key = _KEY_RE.match(line)
        if key:
            names.add(key.group(1))
    return sorted(names)


def render_table(release, names, width=100):
    """The written part of this module for ``release`` and ``names``."""
    lines, current = [], ""
    for name in sorted(names):
        if current and len(current) + 1 + len(name) > width:
            lines.append(current)
            current = name
        else:
            current = (current + " " + name).strip()
    if current:
        lines.append(current)
    return 'RELEASE = "%s"\n_TABLE = """\n%s\n"""\n' % (release, "\n".join(lines))


_REFUSAL_RE = re.compile(r"\b(?:are|is) not supported|has no vLLM implementation|is not a registered model|"
                         r"is not compatible with vLLM", re.I)


def known_architectures(text, vllm_version=None):
    """The architectures named on a refusal line that RELEASE has, when the log's vLLM is older than
    RELEASE (or not known); an empty list otherwise. A refusal for a platform ("not supported on
    Neuron") is the platform's, not the release's: none."""
    if re.search(r"not supported on (?!the current)", text, re.I):
        return []
    if vllm_version and _version_tuple(vllm_version) >= _version_tuple(RELEASE):
        return []
    # the names before the refusal, not vLLM's list of supported ones printed after it
    refusal = _REFUSAL_RE.search(text)
    named = text[:refusal.start()] if refusal else text
    found = []
    for name in re.findall(r"\b[A-Z]\w+\b", named):
        if name in ARCHITECTURES and name not in found:
            found.append(name)
    return found
