"""The DPO bonus as its notebook writes it (ch07/04_preference-tuning-with-dpo,
dpo-from-scratch.ipynb): PreferenceDataset, custom_collate_fn, compute_logprobs,
compute_dpo_loss, compute_dpo_loss_batch, compute_dpo_loss_loader,
evaluate_dpo_loss_loader and train_model_dpo_simple, on python3-torch. tiktoken's
encoder is gpt2_bpe.Encoder (OpenAI's encoder.py on the same vocabulary); the model is
the course's GPTModel (gpt.py), with appendix E's LoRA when a run has one."""
from functools import partial

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import ch07_instruction as ch07
import gpt
import gpt2_bpe

format_input = ch07.format_input


class PreferenceDataset(Dataset):
    def __init__(self, data, tokenizer):
        self.data = data

        # Pre-tokenize texts
        self.encoded_texts = []
        for entry in data:
            prompt = format_input(entry)
            rejected_response = entry["rejected"]
            chosen_response = entry["chosen"]

            prompt_tokens = tokenizer.encode(prompt)
            chosen_full_text = f"{prompt}\n\n### Response:\n{chosen_response}"
            rejected_full_text = f"{prompt}\n\n### Response:\n{rejected_response}"
            chosen_full_tokens = tokenizer.encode(chosen_full_text)
            rejected_full_tokens = tokenizer.encode(rejected_full_text)

            self.encoded_texts.append({
                "prompt": prompt_tokens,
                "chosen": chosen_full_tokens,
                "rejected": rejected_full_tokens,
            })

    def __getitem__(self, index):
        return self.encoded_texts[index]

    def __len__(self):
        return len(self.data)


def custom_collate_fn(
    batch,
    pad_token_id=50256,
    allowed_max_length=None,
    mask_prompt_tokens=True,
    device="cpu"
):
    # Initialize lists to hold batch data
    batch_data = {
        "prompt": [],
        "chosen": [],
        "rejected": [],
        "rejected_mask": [],
        "chosen_mask": []

    }

    # Determine the longest sequence to set a common padding length
    max_length_common = 0
    if batch:
        for key in ["chosen", "rejected"]:
            current_max = max(len(item[key])+1 for item in batch)
            max_length_common = max(max_length_common, current_max)

    # Process each item in the batch
    for item in batch:
        prompt = torch.tensor(item["prompt"])
        batch_data["prompt"].append(prompt)

        for key in ["chosen", "rejected"]:
            # Adjust padding according to the common maximum length
            sequence = item[key]
            padded = sequence + [pad_token_id] * (max_length_common - len(sequence))
            mask = torch.ones(len(padded)).bool()

            # Set mask for all padding tokens to False
            mask[len(sequence):] = False

            # Set mask for all input tokens to False
            # +2 sets the 2 newline ("\n") tokens before "### Response" to False
            if mask_prompt_tokens:
                mask[:prompt.shape[0]+2] = False

            batch_data[key].append(torch.tensor(padded))
            batch_data[f"{key}_mask"].append(mask)

    # Final processing
    for key in ["chosen", "rejected", "chosen_mask", "rejected_mask"]:
        # Stack all sequences into a tensor for the given key
        tensor_stack = torch.stack(batch_data[key])

        # Optionally truncate to maximum sequence length
        if allowed_max_length is not None:
            tensor_stack = tensor_stack[:, :allowed_max_length]

        # Move to the specified device
        batch_data[key] = tensor_stack.to(device)

    return batch_data


def compute_dpo_loss(
      model_chosen_logprobs,
      model_rejected_logprobs,
      reference_chosen_logprobs,
      reference_rejected_logprobs,
      beta=0.1,
    ):
    model_logratios = model_chosen_logprobs - model_rejected_logprobs
    reference_logratios = reference_chosen_logprobs - reference_rejected_logprobs
    logits = model_logratios - reference_logratios

    # DPO (Eq. 7 of https://arxiv.org/pdf/2305.18290.pdf)
    losses = -F.logsigmoid(beta * logits)

    # Optional values to track progress during training
    chosen_rewards = (model_chosen_logprobs - reference_chosen_logprobs).detach()
    rejected_rewards = (model_rejected_logprobs - reference_rejected_logprobs).detach()

    # .mean() to average over the samples in the batch
    return losses.mean(), chosen_rewards.mean(), rejected_rewards.mean()


def compute_logprobs(logits, labels, selection_mask=None):
    # Labels are the inputs shifted by one
    labels = labels[:, 1:].clone()

    # Truncate logits to match the labels num_tokens
    logits = logits[:, :-1, :]

    log_probs = F.log_softmax(logits, dim=-1)

    # Gather the log probabilities for the actual labels
    selected_log_probs = torch.gather(
        input=log_probs,
        dim=-1,
        index=labels.unsqueeze(-1)
    ).squeeze(-1)

    if selection_mask is not None:
        mask = selection_mask[:, 1:].clone()

        # Apply the mask to filter out padding tokens
        selected_log_probs = selected_log_probs * mask

        # Calculate the average log probability excluding padding tokens
        # This averages over the tokens, so the shape is (batch_size,)
        avg_log_prob = selected_log_probs.sum(-1) / mask.sum(-1)

        return avg_log_prob

    else:
        return selected_log_probs.mean(-1)


def compute_dpo_loss_batch(batch, policy_model, reference_model, beta):
    """Compute the DPO loss on an input batch"""

    # where policy_model(batch["chosen"]) are the logits
    policy_chosen_log_probas = compute_logprobs(
        logits=policy_model(batch["chosen"]),
        labels=batch["chosen"],
        selection_mask=batch["chosen_mask"]
    )
    policy_rejected_log_probas = compute_logprobs(
        logits=policy_model(batch["rejected"]),
        labels=batch["rejected"],
        selection_mask=batch["rejected_mask"]
    )

    with torch.no_grad():
        ref_chosen_log_probas = compute_logprobs(
            logits=reference_model(batch["chosen"]),
            labels=batch["chosen"],
            selection_mask=batch["chosen_mask"]
        )
        ref_rejected_log_probas = compute_logprobs(
            logits=reference_model(batch["rejected"]),
            labels=batch["rejected"],
            selection_mask=batch["rejected_mask"]
        )
    loss, chosen_rewards, rejected_rewards = compute_dpo_loss(
        model_chosen_logprobs=policy_chosen_log_probas,
        model_rejected_logprobs=policy_rejected_log_probas,
        reference_chosen_logprobs=ref_chosen_log_probas,
        reference_rejected_logprobs=ref_rejected_log_probas,
        beta=beta
    )
    return loss, chosen_rewards, rejected_rewards


def compute_dpo_loss_loader(data_loader, policy_model, reference_model, beta, num_batches=None):
    """Apply compute_dpo_loss_batch to a whole data loader"""

    total_loss, total_chosen_rewards, total_rejected_rewards = 0., 0., 0.
    if len(data_loader) == 0:
        return float("nan")

    elif num_batches is None:
        num_batches = len(data_loader)
    else:
        # Reduce the number of batches to match the total number of batches in the data loader
        # if num_batches exceeds the number of batches in the data loader
        num_batches = min(num_batches, len(data_loader))
    for i, batch in enumerate(data_loader):
        if i < num_batches:
            loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(
                batch=batch,
                policy_model=policy_model,
                reference_model=reference_model,
                beta=beta
            )
            total_loss += loss.item()
            total_chosen_rewards += chosen_rewards.item()
            total_rejected_rewards += rejected_rewards.item()

        else:
            break

    # calculate average
    total_loss /= num_batches
    total_chosen_rewards /= num_batches
    total_rejected_rewards /= num_batches
    return total_loss, total_chosen_rewards, total_rejected_rewards


def evaluate_dpo_loss_loader(policy_model, reference_model, train_loader, val_loader, beta, eval_iter):
    """Compute the DPO loss for the training and validation dataset"""

    policy_model.eval()
    with torch.no_grad():
        train_loss, train_chosen_rewards, train_rejected_rewards = compute_dpo_loss_loader(
            data_loader=train_loader,
            policy_model=policy_model,
            reference_model=reference_model,
            beta=beta,
            num_batches=eval_iter
        )

        val_loss, val_chosen_rewards, val_rejected_rewards = compute_dpo_loss_loader(
            data_loader=val_loader,
            policy_model=policy_model,
            reference_model=reference_model,
            beta=beta,
            num_batches=eval_iter
        )

    res = {
        "train_loss": train_loss,
        "train_chosen_reward": train_chosen_rewards,
        "train_rejected_reward": train_rejected_rewards,
        "val_loss": val_loss,
        "val_chosen_reward": val_chosen_rewards,
        "val_rejected_reward": val_rejected_rewards
    }

    policy_model.train()
    return res


def train_model_dpo_simple(
    policy_model, reference_model, train_loader, val_loader,
    optimizer, num_epochs, beta,
    eval_freq, eval_iter, start_context, tokenizer, max_steps=0
):
    """The notebook's loop; max_steps (not the notebook's) stops it where a run given
    --max-steps stops."""
    # Initialize lists to track losses and tokens seen
    tracking = {
        "train_losses": [],
        "train_chosen_rewards": [],
        "train_rejected_rewards": [],
        "val_losses": [],
        "val_chosen_rewards": [],
        "val_rejected_rewards": [],
        "tokens_seen": []
    }
    tokens_seen, global_step = 0, -1

    # Main training loop
    for epoch in range(num_epochs):
        policy_model.train()  # Set model to training mode

        for batch in train_loader:
            if max_steps and global_step + 1 >= max_steps:
                return tracking

            optimizer.zero_grad()  # Reset loss gradients from previous batch iteration

            loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(
                batch=batch,
                policy_model=policy_model,
                reference_model=reference_model,
                beta=beta
            )

            loss.backward()  # Calculate loss gradients
            optimizer.step()  # Update model weights using loss gradients

            tokens_seen += batch["chosen"].numel()
            global_step += 1

            # Optional evaluation step
            if global_step % eval_freq == 0:
                res = evaluate_dpo_loss_loader(
                    policy_model=policy_model,
                    reference_model=reference_model,
                    train_loader=train_loader,
                    val_loader=val_loader,
                    beta=beta,
                    eval_iter=eval_iter
                )
                tracking["train_losses"].append(res["train_loss"])
                tracking["train_chosen_rewards"].append(res["train_chosen_reward"])
                tracking["train_rejected_rewards"].append(res["train_rejected_reward"])
                tracking["val_losses"].append(res["val_loss"])
                tracking["val_chosen_rewards"].append(res["val_chosen_reward"])
                tracking["val_rejected_rewards"].append(res["val_rejected_reward"])
                tracking["tokens_seen"].append(tokens_seen)
                train_reward_margin = res["train_chosen_reward"] - res["train_rejected_reward"]
                val_reward_margin = res["val_chosen_reward"] - res["val_rejected_reward"]

                print(
                    f"Ep {epoch+1} (Step {global_step:06d}): "
                    f"Train loss {res['train_loss']:.3f}, Val loss {res['val_loss']:.3f}, "
                    f"Train reward margins {train_reward_margin:.3f}, "
                    f"Val reward margins {val_reward_margin:.3f}"
                )

        # Print a sample text after each epoch
        ch07.generate_and_print_sample(policy_model, tokenizer, torch.device("cpu"), start_context)

    return tracking


def loaders(train_data, val_data, allowed_max_length, batch_size, mask_prompt_tokens=True):
    """The notebook's two loaders (after its torch.manual_seed(123), which the caller
    sets)."""
    tokenizer = gpt2_bpe.Encoder()
    customized_collate_fn = partial(custom_collate_fn, device="cpu", mask_prompt_tokens=mask_prompt_tokens,
                                    allowed_max_length=allowed_max_length)
    train_loader = DataLoader(PreferenceDataset(train_data, tokenizer), batch_size=batch_size,
                              collate_fn=customized_collate_fn, shuffle=True, drop_last=True, num_workers=0)
    val_loader = DataLoader(PreferenceDataset(val_data, tokenizer), batch_size=batch_size,
                            collate_fn=customized_collate_fn, shuffle=False, drop_last=False, num_workers=0)
    return train_loader, val_loader


def models_for_run(cfg, run):
    """The reference and the policy with the seed's random weights (the notebook loads
    gpt2-medium355M-sft.pth into both), the policy with exercise 7.4's LoRA when the run
    has one."""
    torch.manual_seed(run["seed"])
    reference = gpt.GPTModel(cfg)
    reference.eval()
    policy = ch07.model_for_run(cfg, run)
    return policy, reference


def dpo(cfg, run):
    """ch07-07-dpo's run, as the notebook's cells make it: the split, the loaders, the
    models, the losses and rewards before training after torch.manual_seed(seed), then
    the training after torch.manual_seed(seed). Returns the figures before training
    and train_model_dpo_simple's tracking."""
    seed, beta = run["seed"], run.get("beta", 0.1)
    train_data, _, val_data = ch07.split(ch07.load(run["data"]))
    torch.manual_seed(seed)
    train_loader, val_loader = loaders(train_data, val_data, cfg["context_length"], run["batch_size"],
                                       run.get("mask_instructions", True))
    policy, reference = models_for_run(cfg, run)
    torch.manual_seed(seed)
    res = evaluate_dpo_loss_loader(policy, reference, train_loader, val_loader, beta, run["eval_iter"])
    before = [res["train_loss"], res["val_loss"], res["train_chosen_reward"], res["train_rejected_reward"],
              res["val_chosen_reward"], res["val_rejected_reward"]]
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(policy.parameters(), lr=run["lr"], weight_decay=run["weight_decay"])
    tracking = train_model_dpo_simple(policy, reference, train_loader, val_loader, optimizer, run["num_epochs"], beta,
                                      run["eval_freq"], run["eval_iter"], format_input(val_data[2]),
                                      gpt2_bpe.Encoder(), run.get("max_steps", 0))
    return before, tracking


GOLDEN_CONFIG = {"vocab_size": 100, "context_length": 32, "emb_dim": 16, "n_heads": 2, "n_layers": 2,
                 "drop_rate": 0.0, "qkv_bias": False}


def golden():
    """tests/golden/ch07-dpo.pt: a small random GPT as the reference, and the policy
    it starts as, trained by three DPO steps on one batch (AdamW, lr 0.01) so that the
    two differ; each step's loss and rewards; then, from the trained policy, both
    models' log-probabilities of the batch, the loss and rewards at beta 0.1, and the
    policy's gradients."""
    import json
    from common import save_golden
    torch.manual_seed(123)
    reference = gpt.GPTModel(GOLDEN_CONFIG)
    reference.eval()
    policy = gpt.GPTModel(GOLDEN_CONFIG)
    policy.load_state_dict(reference.state_dict())
    draw = torch.Generator().manual_seed(7)
    items = []
    for prompt_length, chosen_length, rejected_length in ((5, 4, 7), (3, 9, 2), (6, 3, 3)):
        prompt = torch.randint(0, 99, (prompt_length,), generator=draw).tolist()
        items.append({"prompt": prompt,  # + 2: the notebook's two "\n" tokens, masked with the prompt
                      "chosen": prompt + torch.randint(0, 99, (2 + chosen_length,), generator=draw).tolist(),
                      "rejected": prompt + torch.randint(0, 99, (2 + rejected_length,), generator=draw).tolist()})
    batch = custom_collate_fn(items, pad_token_id=99)
    out = {"config": torch.tensor(list(json.dumps(GOLDEN_CONFIG).encode()), dtype=torch.uint8)}
    out |= {f"reference/{k}": v for k, v in reference.state_dict().items()}
    out |= {f"batch/{k}": batch[k] for k in ("chosen", "rejected", "chosen_mask", "rejected_mask")}
    optimizer = torch.optim.AdamW(policy.parameters(), lr=0.01, weight_decay=0.01)
    steps = []
    for _ in range(3):
        optimizer.zero_grad()
        loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(batch, policy, reference, beta=0.1)
        loss.backward()
        optimizer.step()
        steps.append([loss.item(), chosen_rewards.item(), rejected_rewards.item()])
    out["steps"] = torch.tensor(steps, dtype=torch.float64)
    out |= {f"policy/{k}": v for k, v in policy.state_dict().items()}
    with torch.no_grad():
        for name, model in (("policy", policy), ("reference", reference)):
            for key in ("chosen", "rejected"):
                out[f"logprobs/{name}/{key}"] = compute_logprobs(model(batch[key]), batch[key], batch[f"{key}_mask"])
    policy.zero_grad()
    loss, chosen_rewards, rejected_rewards = compute_dpo_loss_batch(batch, policy, reference, beta=0.1)
    loss.backward()
    out["loss"] = torch.stack([loss, chosen_rewards, rejected_rewards]).detach()
    out |= {f"grad/{k}": p.grad for k, p in policy.named_parameters()}
    save_golden("ch07-dpo", out)


if __name__ == "__main__":
    golden()
