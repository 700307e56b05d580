package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// AskUserQuestionInput is the AskUserQuestion tool's input (Claude Code's
// shape, without the answers its own UI fills in).
type AskUserQuestionInput struct {
	Questions []Question `json:"questions" jsonschema:"minItems=1,maxItems=4" jsonschema_description:"The questions to ask, 1 to 4."`
}

// Question is one multiple-choice question.
type Question struct {
	Question    string           `json:"question" jsonschema_description:"The whole question, clear and specific, ending with a question mark."`
	Header      string           `json:"header" jsonschema_description:"A very short label for the question (at most 12 characters), such as Auth method or Library."`
	Options     []QuestionOption `json:"options" jsonschema:"minItems=2,maxItems=4" jsonschema_description:"The choices, 2 to 4, each distinct. Do not add an Other choice: the user can always type their own answer."`
	MultiSelect bool             `json:"multiSelect" jsonschema:"default=false" jsonschema_description:"Let the user pick several choices instead of one."`
}

// QuestionOption is one choice of a Question.
type QuestionOption struct {
	Label       string `json:"label" jsonschema_description:"The choice as the user sees it, 1 to 5 words."`
	Description string `json:"description" jsonschema_description:"What the choice means or implies."`
}

// Answer is the user's answer to one Question: the labels picked, and
// what they typed instead or besides.
type Answer struct {
	Question string
	Choices  []string
	Other    string
}

// ErrDeclined is what Env.AskUser returns when the user chose not to
// answer.
var ErrDeclined = errors.New("the user declined to answer")

const (
	askMaxQuestions = 4
	askMinOptions   = 2
	askMaxOptions   = 4
)

var askSpec = specFor[AskUserQuestionInput]()

type askUserQuestionTool struct{}

func (askUserQuestionTool) Name() string { return "AskUserQuestion" }

func (askUserQuestionTool) Description() string {
	return `Asks the user one to four multiple-choice questions and waits for the answers.

Use it when you need the user's decision to go on: to clear up an ambiguous request, to learn a preference or requirement, or to choose between approaches you cannot choose between yourself. Do not use it for questions you can answer by reading the project.
- In plan mode, use it to settle requirements before the plan is final; ask for approval of the plan itself with ExitPlanMode, never with this tool.
- Each question has a short header (at most 12 characters) and 2 to 4 options that exclude each other (unless multiSelect), each with a label and a description of what it implies.
- The user can always type an answer of their own instead, so do not add an "Other" option.
- Set multiSelect when several options may be chosen together.
- If you recommend an option, put it first and add "(Recommended)" to its label.`
}

func (askUserQuestionTool) Schema() json.RawMessage { return askSpec.schema() }
func (askUserQuestionTool) Kind() Kind              { return KindOther }

// ReadOnly: the call is itself a question to the user; asking for
// permission to ask would be a second question.
func (askUserQuestionTool) ReadOnly() bool { return true }

func (askUserQuestionTool) Describe(env *Env, input json.RawMessage) Description {
	var in AskUserQuestionInput
	describeInput(input, &in)
	if len(in.Questions) == 1 {
		return Description{Title: shorten(in.Questions[0].Question, 120)}
	}
	return Description{Title: fmt.Sprintf("Ask the user %s", plural(len(in.Questions), "question", "questions"))}
}

func (t askUserQuestionTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in AskUserQuestionInput
	if err := askSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	if err := checkQuestions(in.Questions); err != nil {
		return Errorf("AskUserQuestion: %v", err)
	}
	if env.AskUser == nil {
		return Errorf("AskUserQuestion: the user cannot be asked from here; decide yourself and say what you assumed")
	}
	answers, err := env.AskUser(ctx, in.Questions)
	switch {
	case ctx.Err() != nil:
		return Errorf("The user cancelled while the questions were open.")
	case errors.Is(err, ErrDeclined):
		return Errorf("The user declined to answer the questions. Go on without the answers, or ask differently if they are essential.")
	case err != nil:
		return Errorf("AskUserQuestion: the questions could not be asked: %v", err)
	}
	return Result{Text: answerText(answers)}
}

// checkQuestions enforces the limits the schema states, with messages the
// model can act on.
func checkQuestions(qs []Question) error {
	if len(qs) == 0 || len(qs) > askMaxQuestions {
		return fmt.Errorf("ask between 1 and %d questions (got %d)", askMaxQuestions, len(qs))
	}
	seen := map[string]bool{}
	for i, q := range qs {
		if strings.TrimSpace(q.Question) == "" {
			return fmt.Errorf("questions[%d].question is empty", i)
		}
		if seen[q.Question] {
			return fmt.Errorf("questions[%d] repeats the question %q", i, q.Question)
		}
		seen[q.Question] = true
		if len(q.Options) < askMinOptions || len(q.Options) > askMaxOptions {
			return fmt.Errorf("questions[%d] needs %d to %d options (got %d)", i, askMinOptions, askMaxOptions, len(q.Options))
		}
		labels := map[string]bool{}
		for j, o := range q.Options {
			if strings.TrimSpace(o.Label) == "" {
				return fmt.Errorf("questions[%d].options[%d].label is empty", i, j)
			}
			if labels[o.Label] {
				return fmt.Errorf("questions[%d] has the option %q twice", i, o.Label)
			}
			labels[o.Label] = true
		}
	}
	return nil
}

// answerText tells the model what the user answered, question by question.
func answerText(answers []Answer) string {
	var parts []string
	for _, a := range answers {
		picked := append([]string(nil), a.Choices...)
		if o := strings.TrimSpace(a.Other); o != "" {
			picked = append(picked, o)
		}
		answer := strings.Join(picked, ", ")
		if answer == "" {
			answer = "(no answer)"
		}
		parts = append(parts, fmt.Sprintf("%q = %q", a.Question, answer))
	}
	return "The user answered: " + strings.Join(parts, "; ") + ". Go on with these answers in mind."
}
