#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True

GPUS_PER_NODE=2
MASTER_ADDR=localhost
MASTER_PORT=6000
NNODES=1
NODE_RANK=0
#WORLD_SIZE=$(($GPUS_PER_NODE*$NNODES))
WORLD_SIZE=2

#路径
RD=/data01/zhangjialiang/MDtest

CKPT_SAVE_DIR="$RD/ckpt/llama-2-13b"
DATA_PATH="$RD/dataset/enwiki_text_document"
TOKENIZER_MODEL="$RD/model_from_hf/llama-2-13b-chat-hf/tokenizer.model"

CKPT_LOAD_DIR="$RD/model_weights"
TP=1
PP=1

DISTRIBUTED_ARGS="
    --nproc_per_node $GPUS_PER_NODE \
    --nnodes $NNODES \
    --node_rank $NODE_RANK \
    --master_addr $MASTER_ADDR \
    --master_port $MASTER_PORT
"

GPT_ARGS="
    --use-mcore-models \
    --tensor-model-parallel-size ${TP} \
    --pipeline-model-parallel-size ${PP} \
    --sequence-parallel \
    --num-layers 16 \
    --hidden-size 512 \
    --ffn-hidden-size 1382 \
    --num-attention-heads 16\
    --tokenizer-type Llama2Tokenizer \
    --tokenizer-model ${TOKENIZER_MODEL} \
    --seq-length 4096 \
    --max-position-embeddings 4096 \
    --micro-batch-size 4 \
    --global-batch-size 512 \
    --make-vocab-size-divisible-by 1 \
    --lr 1e-6 \
    --train-iters 5000 \
    --lr-decay-style cosine \
    --untie-embeddings-and-output-weights \
    --disable-bias-linear \
    --attention-dropout 0.0 \
    --init-method-std 0.01 \
    --hidden-dropout 0.0 \
    --position-embedding-type rope \
    --normalization RMSNorm \
    --use-fused-rmsnorm \
    --swiglu \
    --use-flash-attn \
    --no-masked-softmax-fusion \
    --attention-softmax-in-fp32 \
    --min-lr 1e-8 \
    --weight-decay 1e-1 \
    --lr-warmup-fraction 0.01 \
    --clip-grad 1.0 \
    --adam-beta1 0.9 \
    --initial-loss-scale 4096 \
    --adam-beta2 0.95 \
    --no-gradient-accumulation-fusion \
    --load ${CKPT_LOAD_DIR}  \
    --no-load-optim \
    --no-load-rng \
    --use-fused-swiglu \
    --use-fused-rotary-pos-emb \
    --bf16
    --profile
    --profile-step-start 2
    --profile-step-end 3
    --profile-ranks 0 8 16
    --profile-level level2
    --profile-with-cpu
    --profile-save-path ./profile_dir
"

DATA_ARGS="
    --data-path $DATA_PATH \
    --split 949,50,1
"
HeterMoE_ARGS="
    --heter-moe-enable  True\
    --heter-moe-ffn-world-size 1 \
    --heter-moe-attention-world-size 1 \
"

OUTPUT_ARGS="
    --log-interval 1 \
    --save-interval 10000 \
    --eval-interval 1000 \
    --eval-iters 10 \
"

python -m torch.distributed.launch $DISTRIBUTED_ARGS pretrain_gpt.py \
    $GPT_ARGS \
    $DATA_ARGS \
    $OUTPUT_ARGS \
    $HeterMoE_ARGS \
    --distributed-backend nccl \
    --save $CKPT_SAVE_DIR \
    | tee logs/train_llama2_13b.log
