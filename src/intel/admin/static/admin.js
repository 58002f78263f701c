// Small enhancements shared by the panel's pages (the pages work without them).
document.addEventListener("submit", (event) => {
  const question = event.target.dataset?.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
document.addEventListener("click", (event) => {
  const button = event.target.closest?.("[data-copy]");
  if (!button) return;
  const text = document.getElementById(button.dataset.copy)?.textContent ?? "";
  navigator.clipboard?.writeText(text).then(() => {
    button.textContent = "Copied";
  });
});
