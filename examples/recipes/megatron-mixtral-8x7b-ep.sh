#!/bin/bash

# Mixtral 8x7B pretraining with Megatron-LM's mixture-of-experts layers on 4 nodes of 8 H100s,
# in the style of Megatron-LM's examples/mixtral script: 4 pipeline stages, the 8 experts of
# every layer split over 8 expert-parallel ranks (taken from the 8 data-parallel ones), the
# distributed optimizer, bf16, sequence length 4096; each expert takes at most 1.25 times its
# even share of the tokens (the rest are dropped).
#   vramscope plan --from examples/recipes/megatron-mixtral-8x7b-ep.sh
#
# The Mixtral tokenizer's vocabulary (32000) is in its tokenizer.model, which vramscope does
# not read: --vocab-size says it (Megatron itself takes it from the tokenizer).

export CUDA_DEVICE_MAX_CONNECTIONS=1
export TORCH_NCCL_AVOID_RECORD_STREAMS=1

CHECKPOINT_PATH=${1:-"checkpoints/mixtral_8x7b"}
TOKENIZER_MODEL=${2:-"tokenizers/mixtral/tokenizer.model"}
DATA_PATH=${3:-"data/mixtral_text_document"}

GPUS_PER_NODE=8
NUM_NODES=4

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
    --ffn-hidden-size 14336
    --num-attention-heads 32
    --group-query-attention
    --num-query-groups 8
    --seq-length 4096
    --max-position-embeddings 32768
    --position-embedding-type rope
    --rotary-base 1000000
    --normalization RMSNorm
    --swiglu
    --untie-embeddings-and-output-weights
    --disable-bias-linear
    --attention-dropout 0.0
    --hidden-dropout 0.0
    --attention-backend flash
)

MOE_ARGS=(
    --num-experts 8
    --moe-router-topk 2
    --moe-router-load-balancing-type aux_loss
    --moe-aux-loss-coeff 1e-2
    --moe-grouped-gemm
    --moe-token-dispatcher-type alltoall
    --moe-expert-capacity-factor 1.25
    --moe-token-drop-policy probs
)

TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 256
    --train-iters 500000
    --lr 1.0e-4
    --min-lr 1.0e-5
    --lr-decay-style cosine
    --lr-warmup-iters 500
    --weight-decay 0.1
    --clip-grad 1.0
    --init-method-std 0.01
    --bf16
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 1
    --pipeline-model-parallel-size 4
    --expert-model-parallel-size 8
    --use-distributed-optimizer
    --overlap-grad-reduce
    --overlap-param-gather
)

DATA_ARGS=(
    --data-path $DATA_PATH
    --tokenizer-type Llama2Tokenizer
    --tokenizer-model $TOKENIZER_MODEL
    --vocab-size 32000
    --split 99990,8,2
)

LOGGING_ARGS=(
    --log-interval 1
    --save-interval 10000
    --eval-interval 1000
    --eval-iters 10
    --save $CHECKPOINT_PATH
    --load $CHECKPOINT_PATH
)

torchrun "${DISTRIBUTED_ARGS[@]}" pretrain_gpt.py \
    "${MODEL_ARGS[@]}" \
    "${MOE_ARGS[@]}" \
    "${TRAINING_ARGS[@]}" \
    "${MODEL_PARALLEL_ARGS[@]}" \
    "${DATA_ARGS[@]}" \
    "${LOGGING_ARGS[@]}"
