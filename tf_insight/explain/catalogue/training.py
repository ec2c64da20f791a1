"""`fit`/`evaluate` arguments, `tf.data` input and loss shapes."""

from __future__ import annotations

import re

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry
from tf_insight.explain.model import Incident, IncidentKind

_DATASET_CAUSE = """
    A `tf.data.Dataset` already yields whole batches of `(x, y)` or `(x, y, sample_weight)`;
    Keras cannot line up a separate NumPy array (or a split fraction) with the elements of a
    stream it has not read. Keras 3 and tf-keras both refuse, with different wording. (Other
    arguments are silently ignored with a Dataset: `batch_size=` and, in Keras 3,
    `shuffle=`.)
"""

SQUEEZE_SAMPLE_WEIGHT = entry(
    "squeeze-sample-weight",
    title="A custom loss reduced over the batch, so `sample_weight` cannot be applied (tf-keras)",
    rule="TFI010",
    pattern=(
        r"Can not squeeze dim\[0\], expected a dimension of 1, got (?P<batch>\d+)"
        r"(?: for '\{\{node (?P<loss>[\w.]+)/weighted_loss/)?"
    ),
    types=("ValueError", "InvalidArgumentError"),
    phrases=(
        r"cannotsqueezedim\[0\],expectedadimensionof1",
    ),
    defaults={"loss": "loss"},
    summary="""
        tf-keras tried to line up `sample_weight` (one weight per sample, batch of $batch) with
        the loss values and found a rank mismatch: the loss function `$loss` returned fewer dimensions
        than one value per sample.
    """,
    cause="""
        Keras calls a loss function `(y_true, y_pred)` once per batch and expects one loss per
        sample (shape `(batch,)`); it then multiplies by `sample_weight` and averages. A loss
        that already averages over the batch (`tf.reduce_mean(...)` without `axis`) returns a
        scalar, so tf-keras squeezes the weights to match and fails when the model output is
        rank 1. With other shapes (and in Keras 3) nothing fails and the weighting is silently
        wrong: each batch's mean is scaled by the sum of its weights.
    """,
    fix="""
        Return one value per sample — reduce only the last axis:

        ```python
        def my_loss(y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1)  # not over the batch
        ```
    """,
    links=(links.KERAS_FIT,),
)

DATASET_WITH_SAMPLE_WEIGHT = entry(
    "dataset-with-sample-weight",
    title="`fit` got a `tf.data.Dataset` and a separate `sample_weight`",
    rule="TFI011",
    pattern=(
        r"When providing `x` as a tf\.data\.Dataset, `sample_weights` should not be passed"
        r"|`sample_weight` argument is not supported when using dataset as input"
        # TF 1.x
        r"|`sample_weight` argument is not supported when input `x` is a dataset"
    ),
    types=("ValueError",),
    phrases=(
        r"whenprovidingxasatf\.data\.dataset,sample_weightsshouldnotbepassed",
        r"sample_weightargumentisnotsupportedwhen(?:usingdatasetasinput|inputxisadataset)",
    ),
    summary="`fit`/`evaluate` received `x` as a `tf.data.Dataset` together with `sample_weight=`.",
    cause=_DATASET_CAUSE,
    fix="""
        Put the weights into the dataset as a third element:

        ```python
        dataset = tf.data.Dataset.from_tensor_slices((x, y, weights)).batch(32)
        model.fit(dataset)
        ```
    """,
    links=(links.KERAS_FIT, links.TF_DATA),
)

DATASET_WITH_TARGETS = entry(
    "dataset-with-targets",
    title="`fit` got a `tf.data.Dataset` and a separate `y`",
    rule="TFI011",
    pattern=(
        r"When providing `x` as a tf\.data\.Dataset, `y` should not be passed"
        r"|`y` argument is not supported when using dataset as input"
        # TF 1.x
        r"|You passed a dataset or dataset iterator \([^\n]*\) as input `x` to your model\."
        r" In that case, you should not specify a target \(`y`\) argument"
    ),
    types=("ValueError",),
    phrases=(
        r"whenprovidingxasatf\.data\.dataset,yshouldnotbepassed",
        r"yargumentisnotsupportedwhenusingdatasetasinput",
        r"youpassedadatasetordatasetiterator.{0,2000}?youshouldnotspecifyatarget\(y\)argument",
    ),
    summary="`fit`/`evaluate` received `x` as a `tf.data.Dataset` together with targets `y`.",
    cause=_DATASET_CAUSE,
    fix="""
        Zip the targets into the dataset:

        ```python
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(32)
        model.fit(dataset)          # no y argument
        ```
    """,
    links=(links.KERAS_FIT, links.TF_DATA),
)

_FOUND = re.compile(r"found(?: following types in the input)?:|Found incompatible type", re.I)


def _found_a_dataset(incident: Incident) -> bool:
    """The message lists what `x` was (TF 2.x and Keras 3 do): only a Dataset is this case;
    a list holding a Python number, for one, is a plain input error."""
    found = _FOUND.search(incident.message)
    return found is None or "dataset" in incident.message[found.end():].lower()


DATASET_WITH_VALIDATION_SPLIT = entry(
    "dataset-with-validation-split",
    title="`validation_split` used with a `tf.data.Dataset`",
    rule="TFI011",
    pattern=(
        r"`?validation_split`? is only supported for [Tt]ensors or NumPy arrays"
        # TF 1.x, and TF 2.0-2.1 naming the data adapter
        r"|`validation_split` argument is not supported when (?:input `x` is a dataset"
        r"|data adapter is [^\n]*DatasetAdapter)"
    ),
    types=("ValueError",),
    phrases=(
        r"validation_splitisonlysupportedfortensorsornumpyarrays",
        r"validation_splitargumentisnotsupportedwhen(?:inputxisadataset|dataadapteris[^\n]{0,300}?datasetadapter)",
    ),
    when=_found_a_dataset,
    summary="`fit` received `validation_split=` while `x` is a `tf.data.Dataset`.",
    cause=_DATASET_CAUSE,
    fix="""
        Split the dataset yourself and pass `validation_data`:

        ```python
        dataset = dataset.shuffle(1000, seed=0, reshuffle_each_iteration=False)
        validation = dataset.take(200).batch(32)
        training = dataset.skip(200).batch(32)
        model.fit(training, validation_data=validation)
        ```
    """,
    links=(links.KERAS_FIT, links.TF_DATA),
)

DATASET_NOT_BATCHED = entry(
    "dataset-not-batched",
    title="An unbatched `tf.data.Dataset` was given to `fit`",
    rule=None,
    pattern=(
        r"Expected shape \(None, [^)]*\), but input has incompatible shape \((?P<shape>[^)]*)\)"
        r"|is incompatible with the layer: expected min_ndim=\d+, found ndim=\d+"
    ),
    types=("ValueError",),
    phrases=(
        r"expectedshape\(none,[^)]*\),butinputhasincompatibleshape",
        r"isincompatiblewiththelayer:expectedmin_ndim=\d+,foundndim=\d+",
    ),
    summary="""
        The model received single examples instead of batches: a `tf.data.Dataset` passed to
        `fit` yields one sample per element because `.batch()` was not called.
    """,
    cause="""
        With a `Dataset`, Keras takes each element as one batch and ignores `batch_size=`.
        `from_tensor_slices` yields single samples, so the first layer sees a tensor without
        the batch axis.
    """,
    fix="""
        Batch the dataset before `fit`:

        ```python
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(1000).batch(32)
        model.fit(dataset)          # batch_size= has no effect with a Dataset
        ```
    """,
    links=(links.KERAS_FIT, links.TF_DATA),
)

DATASET_SHUFFLE_IGNORED = entry(
    "dataset-shuffle-ignored",
    title="`shuffle=True` is ignored for a `tf.data.Dataset` (Keras 3)",
    rule="TFI011",
    pattern=r"`shuffle=True` was passed, but will be ignored since the data `x` was provided as a tf\.data\.Dataset",
    kind=IncidentKind.WARNING,
    types=("UserWarning",),
    phrases=(
        r"shuffle=truewaspassed,butwillbeignoredsincethedataxwasprovidedasatf\.data\.dataset",
    ),
    summary="Keras 3 warns that it will not shuffle a `tf.data.Dataset` passed to `fit`.",
    cause="""
        `fit`'s `shuffle` (on by default) only applies to arrays. A `Dataset` is read as it is;
        if it was not shuffled, every epoch sees the same order. Keras 3 prints this warning for
        every `fit` on a Dataset, even when the Dataset is already shuffled.
    """,
    fix="""
        Shuffle in the pipeline, before batching, and silence the warning with `shuffle=False`:

        ```python
        dataset = dataset.shuffle(buffer_size=10_000).batch(32)
        model.fit(dataset, shuffle=False)
        ```
    """,
    links=(links.TF_DATA,),
)

ENTRIES: list[Entry] = [
    SQUEEZE_SAMPLE_WEIGHT,
    DATASET_WITH_SAMPLE_WEIGHT,
    DATASET_WITH_TARGETS,
    DATASET_WITH_VALIDATION_SPLIT,
    DATASET_NOT_BATCHED,
    DATASET_SHUFFLE_IGNORED,
]
