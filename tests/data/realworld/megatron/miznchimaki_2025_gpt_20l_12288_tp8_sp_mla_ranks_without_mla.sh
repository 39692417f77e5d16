#!/bin/bash

# Runs the "175B" parameter model

export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
# Change for multinode config
# MASTER_ADDR=localhost
# MASTER_PORT=6000
# NUM_NODES=1
# NODE_RANK=0
# WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))

CHECKPOINT_PATH=$1 #<Specify path>
TENSORBOARD_LOGS_PATH=$2 #<Specify path>
VOCAB_FILE=$3 #<Specify path to file>/gpt2-vocab.json
MERGE_FILE=$4 #<Specify path to file>/gpt2-merges.txt
DATA_PATH=$5 #<Specify path and file prefix>_text_document
MASTER_ADDR=$6
MASTER_PORT=$7
NUM_NODES=$8
NODE_RANK=$9
WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))

DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE 
    --nnodes $NUM_NODES 
    --master_addr $MASTER_ADDR 
    --master_port $MASTER_PORT
    --node_rank $NODE_RANK 
)

GPT_MODEL_ARGS=(
    --num-layers 20
    --hidden-size 12288 
    --num-attention-heads 96 
    --seq-length 2048 
    --max-position-embeddings 2048 
    --attention-backend flash # Can use (flash/fused/unfused/local)
    --use-flash-attn
    --q-lora-rank 4
    --kv-lora-rank 4
#    --qk-head-dim 128
#    --qk-pos-emb-head-dim 64
#    --v-head-dim 128
)

TRAINING_ARGS=(
    --micro-batch-size 1 
    --global-batch-size 1 
    --train-iters 100000 
    --weight-decay 0.1 
    --adam-beta1 0.9 
    --adam-beta2 0.95 
    --init-method-std 0.006 
    --clip-grad 1.0 
    --bf16 
    --lr 6.0e-5 
    --lr-decay-style cosine 
    --min-lr 6.0e-6 
    --lr-warmup-fraction .001 
    --lr-decay-iters 50000 
    --use-torch-optimizer-for-cpu-offload 
    # --checkpoint-activations
    # --recompute-method uniform 
    # --recompute-num-layers 1 
)

MODEL_PARALLEL_ARGS=(
    --tensor-model-parallel-size 8 
    --sequence-parallel 
    --pipeline-model-parallel-size 1 
)

DATA_ARGS=(
    --train-data-path $DATA_PATH 
    --vocab-file $VOCAB_FILE 
    --merge-file $MERGE_FILE 
)

EVAL_AND_LOGGING_ARGS=(
    --log-interval 1 
    --save-interval 10000 
    --save $CHECKPOINT_PATH 
    --tensorboard-dir $TENSORBOARD_LOGS_PATH 
)

torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${GPT_MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${MODEL_PARALLEL_ARGS[@]} \
    ${DATA_ARGS[@]} \
    ${EVAL_AND_LOGGING_ARGS[@]}
