"""Reference pages the catalogue entries link to."""

FUNCTION_GUIDE = "https://www.tensorflow.org/guide/function"
RETRACING = "https://www.tensorflow.org/guide/function#controlling_retracing"
FUNCTION_VARIABLES = "https://www.tensorflow.org/guide/function#creating_tfvariables"
FUNCTION_OUTPUTS = (
    "https://www.tensorflow.org/guide/function#all_outputs_of_a_tffunction_must_be_return_values"
)
AUTOGRAPH_LIMITATIONS = (
    "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/python/autograph/g3doc/"
    "reference/limitations.md"
)
AUTOGRAPH_CONTROL_FLOW = "https://www.tensorflow.org/guide/function#autograph_transformations"
CUSTOM_GRADIENT = "https://www.tensorflow.org/api_docs/python/tf/custom_gradient"
RECOMPUTE_GRAD = "https://www.tensorflow.org/api_docs/python/tf/recompute_grad"
KERAS_REMAT = "https://keras.io/api/utils/config_utils/#rematscope-class"
KERAS_FIT = "https://keras.io/api/models/model_training_apis/#fit-method"
KERAS_CUSTOM_LAYERS = "https://keras.io/guides/making_new_layers_and_models_via_subclassing/"
KERAS_FUNCTIONAL = "https://keras.io/guides/functional_api/"
TF_DATA = "https://www.tensorflow.org/guide/data"
TF_DATA_DEBUG = "https://www.tensorflow.org/api_docs/python/tf/data/experimental/enable_debug_mode"
SUMMARY_GUIDE = "https://www.tensorflow.org/tensorboard/get_started"
SUMMARY_SCALAR = "https://www.tensorflow.org/api_docs/python/tf/summary/scalar"
GRADIENT_TAPE = "https://www.tensorflow.org/guide/autodiff#cases_where_gradient_returns_none"
INPUT_SIGNATURE = "https://www.tensorflow.org/api_docs/python/tf/function#input_signature"
DEBUGGING = "https://www.tensorflow.org/guide/function#debugging"
TF_PIP = "https://www.tensorflow.org/install/pip"
KERAS_PREDICT = "https://keras.io/getting_started/faq/#whats-the-difference-between-model-methods-predict-and-call"
