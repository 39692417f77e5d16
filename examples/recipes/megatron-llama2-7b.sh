#!/bin/bash

# Llama-2 7B pretraining with Megatron-LM on one node of 8 H100s, in the style of Megatron-LM's
# examples/llama scripts: tensor parallelism 2, no pipeline, 4 data-parallel replicas with the
# distributed optimizer, bf16, sequence length 4096.
#   vramscope plan --from examples/recipes/megatron-llama2-7b.sh
#
# The Llama 2 tokenizer's vocabulary (32000) is in its tokenizer.model, which vramscope does
# not read: --vocab-size says it (Megatron itself takes it from the tokenizer).

export CUDA_DEVICE_MAX_CONNECTIONS=1
# c10d otherwise holds every collective's tensors with record_stream until the NCCL stream
# catches up.
export TORCH_NCCL_AVOID_RECORD_STREAMS=1

CHECKPOINT_PATH=${1:-"checkpoints/llama2_7b"}
TOKENIZER_MODEL=${2:-"tokenizers/llama2/tokenizer.model"}
DATA_PATH=${3:-"data/llama2_text_document"}

GPUS_PER_NODE=8
NUM_NODES=1
TP_SIZE=2
PP_SIZE=1
MICRO_BATCH_SIZE=1
GLOBAL_BATCH_SIZE=128
SEQ_LENGTH=4096

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr ${MASTER_ADDR:-localhost}
    --master_port ${MASTER_PORT:-6000}
)

MODEL_ARGS=(
    --use-mcore-models
    --num-layers 32
    --hidden-size 4096
    --ffn-hidden-size 11008
    --num-attention-heads 32
    --seq-length $SEQ_LENGTH
    --max-position-embeddings $SEQ_LENGTH
    --position-embedding-type rope
    --rotary-base 10000
    --normalization RMSNorm
    --norm-epsilon 1e-5
    --swiglu
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --attention-dropout 0.0
    --hidden-dropout 0.0
    --attention-backend flash
)

TRAINING_ARGS=(
    --micro-batch-size $MICRO_BATCH_SIZE
    --global-batch-size $GLOBAL_BATCH_SIZE
    --train-iters 250000
    --lr 3.0e-4
    --min-lr 3.0e-5
    --lr-decay-style cosine
    --lr-warmup-iters 2000
    --weight-decay 0.1
    --adam-beta1 0.9
    --adam-beta2 0.95
    --clip-grad 1.0
    --init-method-std 0.02
    --bf16
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size $TP_SIZE
    --pipeline-model-parallel-size $PP_SIZE
    --sequence-parallel
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)

DATA_ARGS=(
    --data-path $DATA_PATH
    --tokenizer-type Llama2Tokenizer
    --tokenizer-model $TOKENIZER_MODEL
    --vocab-size 32000
    --split 99,1,0
)

LOGGING_ARGS=(
    --log-interval 10
    --save-interval 5000
    --eval-interval 1000
    --eval-iters 10
    --save $CHECKPOINT_PATH
    --load $CHECKPOINT_PATH
)

torchrun "${DISTRIBUTED_ARGS[@]}" pretrain_gpt.py \
    "${MODEL_ARGS[@]}" \
    "${TRAINING_ARGS[@]}" \
    "${MODEL_PARALLEL_ARGS[@]}" \
    "${DATA_ARGS[@]}" \
    "${LOGGING_ARGS[@]}"
