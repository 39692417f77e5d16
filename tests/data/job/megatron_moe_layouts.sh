#!/bin/bash
# A Megatron-LM MoE launch with a shared expert and a dense first layer (--moe-layer-freq as a
# list pattern): a seed for fuzz_job_yaml and the importer's tests.
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 12 --hidden-size 1024 --num-attention-heads 16 \
    --group-query-attention --num-query-groups 4 --seq-length 4096 \
    --max-position-embeddings 4096 --swiglu --normalization RMSNorm \
    --position-embedding-type rope --disable-bias-linear --untie-embeddings-and-output-weights \
    --ffn-hidden-size 4096 --vocab-size 32000 --hidden-dropout 0 --attention-dropout 0 \
    --num-experts 16 --moe-router-topk 4 --moe-ffn-hidden-size 512 \
    --moe-shared-expert-intermediate-size 1024 --moe-shared-expert-gate \
    --moe-layer-freq "([0]*1+[1]*11)" --moe-expert-capacity-factor 1.0 \
    --expert-model-parallel-size 4 --micro-batch-size 2 --global-batch-size 64 --bf16 \
    --use-distributed-optimizer --use-flash-attn
